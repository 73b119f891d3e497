/**
 * Leader election between browser tabs (docs/spec-notes.md, Polling modes): only the leading tab
 * polls and sends the session heartbeat; the others follow.
 */

/** Name of the BroadcastChannel the tabs of one origin elect their leader on. */
export const TAB_CHANNEL_NAME = 'perch.tabs';
/** A starting tab waits this long for a live leader to answer its announcement. */
export const TAB_ELECTION_ANNOUNCE_WAIT_MS = 100;
/** A tab that proposed itself waits this long for objections before claiming leadership. */
export const TAB_ELECTION_PROPOSE_WAIT_MS = 600;
/** The leader tells the other tabs it is alive this often. */
export const TAB_LEADER_HEARTBEAT_MS = 5_000;
/** Followers check on the leader this often. */
export const TAB_LEADER_MONITOR_MS = 10_000;
/** A leader silent this long is dead; the follower that notices starts an election. */
export const TAB_LEADER_DEAD_AFTER_MS = 15_000;

/** The session heartbeat: retries after a failed beat, with backoff. */
export const HEARTBEAT_MAX_RETRIES = 10;
/** First retry delay after a failed heartbeat; doubles each retry up to the cap below. */
export const HEARTBEAT_RETRY_BASE_MS = 1_000;
/** Longest wait between heartbeat retries (the regular interval: a retry never delays a beat). */
export const HEARTBEAT_RETRY_MAX_MS = 15_000;
