/**
 * Alert rules (shared/contracts/alerts.ts) as pure functions: what a rule decides about a post or
 * a handle, with no storage or sending. The caller loads posts, snapshots and rule memories,
 * keeps the keys of fired post rules, stores each handle rule's memory and sends the firings.
 */
export type {
  AlertPost,
  EvaluatedRule,
  Firing,
  FiringNumbers,
  HandleRule,
  HandleRuleMemory,
  HandleState,
  MetricReading,
  PostRule,
  PostRuleContext,
} from './types.js';
export { evaluatePostRule, firingKey, isPostRule, withoutFired } from './post-rules.js';
export {
  evaluateHandleRule,
  handleCondition,
  type HandleCondition,
  type HandleRuleOptions,
  type HandleRuleStep,
} from './handle-rules.js';
export {
  INITIAL_HANDLE_MEMORY,
  parseHandleMemory,
  serializeHandleMemory,
  stepCrossing,
  type CrossingStep,
} from './crossing.js';
