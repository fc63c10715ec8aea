/**
 * The /healthz probe of bench/http_end_to_end.ts: a Web Worker of this module GETs /healthz every 10 ms and
 * samples the service's VmRSS every 20 ms; `Probe` asks it for each step's summary.
 */
const PROBE_NAME = "tessera-healthz-probe";

/** What the probe measured over one step. */
export interface ProbeStats {
  probes: number;
  maxMs: number;
  p99Ms: number;
  over50: number;
  /** Seconds into the step at which each answer over 50 ms was asked (where to look in a profile). */
  over50At: number[];
  failed: number;
  rssMaxMb: number;
}

/** The probe worker: /healthz every 10 ms and VmRSS every 20 ms, summarised per step on request. */
function probeWorker() {
  const self = globalThis as unknown as {
    postMessage(m: unknown): void;
    onmessage: ((e: MessageEvent) => void) | null;
    close(): void;
  };
  let base = "", statusFile = "", running = false;
  let cur: { t0: number; lat: number[]; slowAt: number[]; failed: number; rssKb: number } | null = null;
  const vmRssKb = () => {
    try {
      const m = Deno.readTextFileSync(statusFile).match(/VmRSS:\s+(\d+) kB/);
      return m ? Number(m[1]) : 0;
    } catch {
      return 0; // the service has ended
    }
  };
  const sampleRss = () => {
    if (cur) cur.rssKb = Math.max(cur.rssKb, vmRssKb());
  };
  const summary = (): ProbeStats => {
    sampleRss();
    const lat = (cur?.lat ?? []).slice().sort((a, b) => a - b);
    return {
      probes: lat.length,
      maxMs: lat.length ? lat[lat.length - 1] : NaN,
      p99Ms: lat.length ? lat[Math.min(lat.length - 1, Math.floor(lat.length * 0.99))] : NaN,
      over50: lat.filter((x) => x > 50).length,
      over50At: cur?.slowAt ?? [],
      failed: cur?.failed ?? 0,
      rssMaxMb: (cur?.rssKb ?? 0) / 1024,
    };
  };
  async function loop() {
    while (running) {
      const t0 = performance.now();
      let ok = false;
      try {
        const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(600_000) });
        await res.arrayBuffer();
        ok = res.ok;
      } catch {
        ok = false;
      }
      const ms = performance.now() - t0;
      if (cur) {
        cur.lat.push(ms);
        if (ms > 50) cur.slowAt.push((t0 - cur.t0) / 1000);
        if (!ok) cur.failed++;
      }
      const wait = 10 - (performance.now() - t0);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  }
  const rssTimer = setInterval(sampleRss, 20);
  self.onmessage = (e: MessageEvent) => {
    const m = e.data;
    if (m.type === "start") {
      base = m.base;
      statusFile = `/proc/${m.pid}/status`;
      running = true;
      loop();
    } else if (m.type === "begin") {
      cur = { t0: performance.now(), lat: [], slowAt: [], failed: 0, rssKb: 0 };
      sampleRss();
    } else if (m.type === "end") {
      self.postMessage({ id: m.id, stats: summary() });
      cur = null;
    } else if (m.type === "stop") {
      running = false;
      clearInterval(rssTimer);
      self.close();
    }
  };
}

/** The main side of the probe. */
export class Probe {
  private worker = new Worker(import.meta.url, { type: "module", name: PROBE_NAME });
  private waiting = new Map<number, (s: ProbeStats) => void>();
  private next = 0;
  constructor(base: string, pid: number) {
    this.worker.onmessage = (e) => {
      this.waiting.get(e.data.id)?.(e.data.stats);
      this.waiting.delete(e.data.id);
    };
    this.worker.postMessage({ type: "start", base, pid });
  }
  begin() {
    this.worker.postMessage({ type: "begin" });
  }
  end(): Promise<ProbeStats> {
    const id = ++this.next;
    this.worker.postMessage({ type: "end", id });
    return new Promise((r) => this.waiting.set(id, r));
  }
  close() {
    this.worker.postMessage({ type: "stop" });
    setTimeout(() => this.worker.terminate(), 100);
  }
}

if ((globalThis as { name?: string }).name === PROBE_NAME) probeWorker();
