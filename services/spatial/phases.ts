/**
 * Where an audit's or a mitigation's time goes, in seconds per phase: every answer reports it, so a
 * reviewer (and the end-to-end benchmark) sees whether a request waited on the store, on preparing the
 * regions, on the worlds, on the solver or on the maps.
 */

/** The phases of an answer, seconds each (a phase a request does not have is 0). */
export interface Phases {
  /** Reading the mapped columns from the store (0 when the prepared dataset was kept). */
  load: number;
  /** Scope, regions and the Monte Carlo plan (regions are kept with the prepared dataset). */
  prepare: number;
  worlds: number;
  /** The mitigation's solver, its problem and its flips. */
  solve: number;
  /** Display hulls (once per prepared dataset) and the maps and charts. */
  maps: number;
}

/** Adds up the seconds of each phase as the work goes. */
export class PhaseClock {
  readonly phases: Phases = { load: 0, prepare: 0, worlds: 0, solve: 0, maps: 0 };

  /** Runs `work`, counting its time to `phase`. */
  async time<T>(phase: keyof Phases, work: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      this.add(phase, (performance.now() - t0) / 1000);
    }
  }

  add(phase: keyof Phases, seconds: number): void {
    this.phases[phase] = Math.round((this.phases[phase] + seconds) * 1e4) / 1e4;
  }
}
