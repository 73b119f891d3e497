import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import type { CollectorControl } from '../../domain/collector-control.js';
import type { XUsageMeter } from '../x-usage/x-usage.service.js';

/** What the /admin routes (and the x-web routes mounted under them) are given. */
export interface AdminDeps {
  config: Config;
  db: Db;
  /** The in-process collector, when this process runs one. */
  collector?: CollectorControl;
  /** The X API cost meter the source records into (GET /admin/x-usage). */
  xUsage?: XUsageMeter;
}
