/**
 * Runs before every test file (vitest `setupFiles`). New world layouts wait up to 60 s, not
 * 2 s, for chunks a worker thread claimed: on a loaded test machine a worker descheduled for
 * over 2 s would otherwise time out, and the world restarting on one thread would fail a
 * thread bit-identity test by scheduling alone. The tests of the time-out set a world's
 * `tailAccel.waitLimitMs` themselves (50 ms, 0).
 */
import { setLayoutWaitLimitMs } from '../core/wasm/tailAccel';

setLayoutWaitLimitMs(60_000);
