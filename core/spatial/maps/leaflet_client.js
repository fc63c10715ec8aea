// Runs in the browser page built by html.ts, after the inlined Leaflet. Reads the data island and draws
// it: the embedded vector base map (or the configured tile layer), the regions with their labels and
// tooltips, and the dots. Every user string reaches the DOM through textContent, never innerHTML.
(() => {
  "use strict";
  const data = JSON.parse(document.getElementById("tessera-data").textContent);
  const style = data.style;
  const map = L.map("map", { preferCanvas: true, zoomSnap: 0.25 });
  function escapeHtml(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return "&#" + c.charCodeAt(0) + ";";
    });
  }
  // a packed line of the base map ([x0, y0, dx1, dy1, ...] in units of 10^-digits degrees, html.ts
  // packPoints) to Leaflet's [lat, lon] points
  function unpack(packed) {
    const k = Math.pow(10, data.basemap.digits);
    const out = [];
    let x = 0, y = 0;
    for (let i = 0; i + 1 < packed.length; i += 2) {
      x += packed[i];
      y += packed[i + 1];
      out.push([y / k, x / k]);
    }
    return out;
  }
  if (data.tiles) {
    L.tileLayer(data.tiles.url, { maxZoom: 19, attribution: escapeHtml(data.tiles.attribution) }).addTo(map);
  } else if (data.basemap) {
    const b = data.basemap;
    map.getContainer().style.background = style.sea;
    map.createPane("basemap").style.zIndex = 250;
    const renderer = L.canvas({ pane: "basemap" });
    const quiet = { renderer: renderer, interactive: false };
    for (let i = 0; i < b.land.length; i++) {
      L.polygon(
        b.land[i].map(unpack),
        Object.assign({ stroke: false, fillColor: style.land, fillOpacity: 1 }, quiet),
      )
        .addTo(map);
    }
    const lines = [
      [b.states, style.states, 0.8, "3 3"],
      [b.coast, style.coast, 1, null],
      [b.borders, style.borders, 1.2, "5 3"],
    ];
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i][0].length) continue;
      L.polyline(
        lines[i][0].map(unpack),
        Object.assign({ color: lines[i][1], weight: lines[i][2], opacity: 1, dashArray: lines[i][3] }, quiet),
      ).addTo(map);
    }
    map.attributionControl.addAttribution(escapeHtml(b.attribution));
  } else {
    map.getContainer().style.background = style.plain;
  }
  function fmt(x, digits) {
    return x === null || x === undefined ? "\u2013" : Number(x).toFixed(digits);
  }
  function pct(x) {
    return x === null || x === undefined ? "\u2013" : (100 * x).toFixed(1) + " %";
  }
  function pp(x) {
    if (x === null || x === undefined) return "\u2013";
    const r = Number(x.toFixed(1));
    return (r > 0 ? "+" : r < 0 ? "\u2212" : "") + Math.abs(r).toFixed(1) + " pp";
  }
  function label(f) {
    return f.name ? f.id + " \u00b7 " + f.name : String(f.id);
  }
  function tooltip(f) {
    const box = document.createElement("div");
    const rows = [
      ["region", label(f)],
      ["individuals", String(f.n)],
      ["predicted positive", String(f.positives)],
      [data.rateName, pct(f.rate)],
      ["overall " + data.rateName, pct(data.overall)],
      ["difference", pp(f.diff)],
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
  const labels = [];
  for (let i = 0; i < order.length; i++) {
    const f = order[i];
    if (f.signif) {
      // a white casing under the dark outline keeps it visible on dark fills
      L.polygon(f.latlngs, { color: style.casing, weight: outline + 2.5, fill: false, interactive: false })
        .addTo(map);
    }
    const poly = L.polygon(f.latlngs, {
      color: f.signif ? style.outline : style.other,
      weight: f.signif ? outline : 0.8,
      fillColor: f.color,
      fillOpacity: data.fillOpacity,
    }).addTo(map);
    poly.bindTooltip(tooltip(f), { sticky: true });
    bounds.extend(poly.getBounds());
    if (f.label) {
      const el = document.createElement("span");
      el.textContent = label(f);
      const marker = L.marker(f.label, {
        icon: L.divIcon({
          className: "region-label" + (f.signif ? " signif" : ""),
          html: el,
          iconSize: [0, 0],
        }),
        interactive: false,
        keyboard: false,
      });
      labels.push({ marker: marker, box: poly.getBounds(), width: label(f).length * 7 + 6 });
    }
  }
  // a label shows while its region is wide and tall enough for it at the current zoom
  function updateLabels() {
    for (let i = 0; i < labels.length; i++) {
      const l = labels[i];
      const nw = map.latLngToLayerPoint(l.box.getNorthWest());
      const se = map.latLngToLayerPoint(l.box.getSouthEast());
      const fits = se.x - nw.x >= l.width && se.y - nw.y >= 16;
      if (fits && !map.hasLayer(l.marker)) l.marker.addTo(map);
      else if (!fits && map.hasLayer(l.marker)) map.removeLayer(l.marker);
    }
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
  map.on("zoomend", updateLabels);
  if (bounds.isValid()) map.fitBounds(bounds.pad(0.05));
  else map.setView([0, 0], 2);
  updateLabels();
})();
