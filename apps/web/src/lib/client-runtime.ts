import { focusManager, onlineManager, type QueryClient } from '@tanstack/react-query';
import { apiClient, type ApiClient } from './api-client';
import { NetworkQualityMonitor } from './polling/network-quality';
import { PollGate, connectPollGate } from './polling/poll-gate';
import { VisibilityController } from './polling/visibility';
import { preferencesStore } from './preferences';
import { createQueryClient } from './query-client';
import { CircuitBreaker } from './resilience/circuit-breaker';
import { RequestGate } from './resilience/request-gate';
import { LeaderHeartbeat } from './tabs/heartbeat';
import { TabLeaderElection, bindPageLifecycle } from './tabs/leader-election';
import { shareQueryResults } from './tabs/query-sync';
import { TabSignOut, isSignOutControl } from './tabs/sign-out';

/** Activity closer together than this counts once (mousemove fires constantly). */
const ACTIVITY_THROTTLE_MS = 1_000;
/**
 * Calls made longer than this after the person last used the page (a key, the pointer, focus)
 * are background ones: the server does not let them keep the session from timing out, so a tab
 * left open ends like a closed one (docs/decisions.md, Session lifetimes).
 */
const IN_USE_WINDOW_MS = 60_000;
const ACTIVITY_EVENTS = ['pointerdown', 'keydown', 'wheel', 'touchstart', 'mousemove'] as const;

function pageVisible(): boolean {
  return typeof document === 'undefined' || document.visibilityState !== 'hidden';
}

function pageFocused(): boolean {
  return typeof document === 'undefined' || document.hasFocus();
}

/**
 * Everything that keeps the app light and calm across tabs (docs/spec-notes.md,
 * Client resilience), wired once for the page:
 * - the tabs elect a leader; the tab the person uses takes the lead; only the leader polls
 *   (through the poll gate), holds the live stream, sends the session heartbeat and probes the
 *   network, and shares every result with the other tabs;
 * - a sign-out in any tab ends the session in all of them before its logout request leaves
 *   (tabs/sign-out.ts): each stops its heartbeat and leaves the signed-in pages, and none takes
 *   the lead for it;
 * - the API client paces same-endpoint calls, cancels duplicates and trips the retry circuit;
 * - visibility and reconnects refresh or cancel queries; preferences and network quality set the
 *   polling intervals.
 */
export class ClientRuntime {
  readonly election: TabLeaderElection;
  readonly pollGate: PollGate;
  readonly circuitBreaker: CircuitBreaker;
  readonly requestGate: RequestGate;
  readonly network: NetworkQualityMonitor;
  readonly heartbeat: LeaderHeartbeat;
  readonly queryClient: QueryClient;
  private readonly visibility: VisibilityController;
  private readonly signOut: TabSignOut;
  private focused = pageFocused();
  private lastActivityAt = 0;
  /** When the person last used this page: loading it counts. */
  private lastUseAt = Date.now();
  private networkRunning = false;
  private teardown: (() => void)[] = [];

  /**
   * `pollGate` and `queryClient` are the page's (made before this module loads, so the sign-in
   * page does not wait for it); without them the runtime makes its own.
   */
  constructor(
    private readonly api: ApiClient = apiClient,
    page: { pollGate?: PollGate; queryClient?: QueryClient } = {},
  ) {
    this.election = new TabLeaderElection();
    this.circuitBreaker = new CircuitBreaker();
    this.requestGate = new RequestGate();
    this.network = new NetworkQualityMonitor();
    this.pollGate = page.pollGate ?? new PollGate();
    this.pollGate.bind({
      isLeader: () => this.election.isLeader,
      online: () => onlineManager.isOnline(),
      visible: () => focusManager.isFocused(),
      focused: () => this.focused,
      networkQuality: () => this.network.getSnapshot().quality,
      autoRefresh: () => preferencesStore.getSnapshot().autoRefresh,
      circuitOpen: () => this.circuitBreaker.state === 'open',
      now: () => Date.now(),
    });
    this.queryClient = page.queryClient ?? createQueryClient({ pollGate: this.pollGate });
    this.visibility = new VisibilityController(this.queryClient);
    this.heartbeat = new LeaderHeartbeat({ election: this.election });
    this.signOut = new TabSignOut(this.election);
    // First on every session end, before the page's own listeners.
    this.signOut.subscribe(() => this.heartbeat.setUserId(null));
  }

  /**
   * Ends the session in every tab of this browser; the sign-out calls it before its logout
   * request leaves. The other tabs are told first; then each tab stops its heartbeat and calls its
   * `onSessionEnd` listeners, which leave the signed-in pages (and with them the live stream and
   * the polls). They do so before anything else re-renders those pages: a page re-rendered after
   * its queries were dropped would fetch them again, for the session that ended.
   */
  endSession(): void {
    this.signOut.announce();
  }

  /** Called when the session ends by a sign-out in this tab or another; returns the removal. */
  onSessionEnd(listener: () => void): () => void {
    return this.signOut.subscribe(listener);
  }

  /** Starts everything; returns the teardown (tests and hot reloads). */
  start(): () => void {
    if (this.teardown.length > 0) return () => this.stop();
    const { election, pollGate, queryClient } = this;
    this.lastUseAt = Date.now();
    this.api.configure({
      requestGate: this.requestGate,
      circuitBreaker: this.circuitBreaker,
      isBackground: () => Date.now() - this.lastUseAt > IN_USE_WINDOW_MS,
    });

    const changed = () => {
      this.syncLeaderServices();
      pollGate.changed();
    };
    const takeOverIfInUse = () => {
      if (pageVisible() && pageFocused()) election.takeOver();
    };
    const onFocus = () => {
      this.focused = true;
      this.lastUseAt = Date.now();
      takeOverIfInUse();
      changed();
    };
    const onBlur = () => {
      this.focused = false;
      changed();
    };
    const onVisibility = () => {
      this.focused = pageFocused();
      if (pageVisible()) this.lastUseAt = Date.now();
      takeOverIfInUse();
      changed();
    };
    const onActivity = (event: Event) => {
      // Pressing Logout is not using the tab: it would take the lead for a session that ends.
      if (isSignOutControl(event.target)) return;
      const now = Date.now();
      if (now - this.lastActivityAt < ACTIVITY_THROTTLE_MS) return;
      this.lastActivityAt = now;
      this.lastUseAt = now;
      // The tab the person is using leads.
      election.takeOver();
      pollGate.recordActivity(now);
    };
    let wasOpen = false;
    const onCircuit = () => {
      const state = this.circuitBreaker.state;
      const open = state !== 'closed';
      // The minute is up: one probe tries the server at once rather than at the next 30 s tick.
      if (state === 'half-open' && this.networkRunning) void this.network.probe();
      if (wasOpen && !open) {
        // Back from an outage: its failed probes said nothing about the network, the heartbeat
        // may have given up, and every screen shown is fetched afresh (what failed, and what
        // may have changed meanwhile).
        this.network.reset();
        this.heartbeat.resume();
        void queryClient.invalidateQueries({ refetchType: 'active' });
      }
      wasOpen = open;
      pollGate.changed();
    };
    const onProbe = () => {
      // A probe that reached the server while the circuit is open: the server answers again.
      const last = this.network.getSnapshot().results.at(-1);
      if (last?.ok && this.circuitBreaker.state !== 'closed') this.circuitBreaker.reset();
      pollGate.changed();
    };

    window.addEventListener('focus', onFocus);
    window.addEventListener('blur', onBlur);
    document.addEventListener('visibilitychange', onVisibility);
    for (const type of ACTIVITY_EVENTS) {
      window.addEventListener(type, onActivity, { passive: true, capture: true });
    }
    this.teardown = [
      () => window.removeEventListener('focus', onFocus),
      () => window.removeEventListener('blur', onBlur),
      () => document.removeEventListener('visibilitychange', onVisibility),
      () => {
        for (const type of ACTIVITY_EVENTS) {
          window.removeEventListener(type, onActivity, { capture: true });
        }
      },
      election.subscribe(changed),
      onlineManager.subscribe(changed),
      this.network.subscribe(onProbe),
      preferencesStore.subscribe(() => pollGate.changed()),
      this.circuitBreaker.subscribe(onCircuit),
      connectPollGate(queryClient, pollGate),
      shareQueryResults(queryClient, election),
      this.signOut.start(),
      this.heartbeat.start(),
      bindPageLifecycle(election),
      () => this.visibility.stop(),
      () => pollGate.dispose(),
      () => this.network.stop(),
      () => election.resign(),
      () => this.api.configure({ requestGate: null, circuitBreaker: null, isBackground: null }),
    ];
    this.visibility.start();
    election.start();
    this.syncLeaderServices();
    return () => this.stop();
  }

  stop(): void {
    const steps = this.teardown;
    this.teardown = [];
    for (const step of steps.reverse()) step();
    this.networkRunning = false;
  }

  /** The connectivity probe runs in the leading tab while its page is visible. */
  private syncLeaderServices(): void {
    const run = this.election.isLeader && pageVisible();
    if (run === this.networkRunning) return;
    this.networkRunning = run;
    if (run) this.network.start();
    else this.network.stop();
  }
}
