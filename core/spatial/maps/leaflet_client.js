// Runs in the browser page built by html.ts, after the inlined Leaflet. Reads the data island and draws
// it. Every user string reaches the DOM through textContent, never innerHTML.
(() => {
  "use strict";
  const data = JSON.parse(document.getElementById("tessera-data").textContent);
  const map = L.map("map", { preferCanvas: true, zoomSnap: 0.25 });
  if (data.tileUrl) {
    // Offline, tiles fail to load and Leaflet keeps them hidden: the plain background shows instead.
    L.tileLayer(data.tileUrl, { maxZoom: 19, attribution: "&copy; OpenStreetMap contributors" }).addTo(map);
  }
  function fmt(x, digits) {
    return x === null || x === undefined ? "\u2013" : Number(x).toFixed(digits);
  }
  function tooltip(f) {
    const box = document.createElement("div");
    const rows = [
      ["region", String(f.id)],
      ["n", String(f.n)],
      ["rate", fmt(f.rate, 3)],
      ["s", fmt(f.s, 4)],
      ["p-value", fmt(f.p, 4)],
      ["significant", f.signif ? "yes" : "no"],
    ];
    for (let i = 0; i < rows.length; i++) {
      const row = document.createElement("div");
      const key = document.createElement("b");
      key.textContent = rows[i][0] + ": ";
      row.appendChild(key);
      row.appendChild(document.createTextNode(rows[i][1]));
      box.appendChild(row);
    }
    return box;
  }
  const bounds = L.latLngBounds([]);
  const outline = data.features.length > 400 ? 1.5 : 3; // thinner when regions are a few pixels wide
  const order = data.features.slice().sort(function (a, b) {
    return (a.signif ? 1 : 0) - (b.signif ? 1 : 0);
  });
  for (let i = 0; i < order.length; i++) {
    const f = order[i];
    const poly = L.polygon(f.latlngs, {
      color: f.signif ? "#000000" : "#666666",
      weight: f.signif ? outline : 1,
      fillColor: f.color,
      fillOpacity: data.fillOpacity,
    }).addTo(map);
    poly.bindTooltip(tooltip(f), { sticky: true });
    bounds.extend(poly.getBounds());
  }
  const pts = data.points;
  if (pts) {
    for (let j = 0; j < pts.lat.length; j++) {
      const ll = [pts.lat[j], pts.lon[j]];
      L.circleMarker(ll, {
        radius: pts.lat.length > 2000 ? 2 : 3,
        stroke: false,
        fillColor: data.dotColors[pts.cls[j] ? 1 : 0],
        fillOpacity: 0.85,
        interactive: false,
      }).addTo(map);
      bounds.extend(ll);
    }
  }
  if (bounds.isValid()) map.fitBounds(bounds.pad(0.05));
  else map.setView([0, 0], 2);
})();
