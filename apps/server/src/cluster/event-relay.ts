/**
 * Live events across nodes: what a worker's collector emits reaches the browsers connected to
 * any API node. Each node publishes its collector's events on one channel and, when it serves
 * browsers or delivers, hands the events of the other nodes to its own listeners.
 */
import type { CollectorEventMap, CollectorEvents } from '../domain/collector-events.js';
import type { Cluster } from './cluster.js';

const CHANNEL = 'events';
const NAMES = new Set<keyof CollectorEventMap>([
  'handle.progress',
  'handle.status',
  'tweet.new',
  'alert.fired',
]);

interface Relayed {
  node: string;
  name: keyof CollectorEventMap;
  payload: CollectorEventMap[keyof CollectorEventMap][0];
}

export interface EventRelayOptions {
  cluster: Cluster;
  events: CollectorEvents;
  /** Publish this node's events (it collects). */
  publish: boolean;
  /** Hand the other nodes' events to this node's listeners (it serves browsers or delivers). */
  receive: boolean;
  onError?: (error: unknown) => void;
}

export async function relayEvents(options: EventRelayOptions): Promise<void> {
  const { cluster, events } = options;
  const onError = options.onError ?? (() => {});
  if (options.publish) {
    events.relayTo((name, payload) => {
      const message: Relayed = { node: cluster.nodeId, name, payload };
      cluster.publish(CHANNEL, message).catch(onError);
    });
  }
  if (options.receive) {
    await cluster.subscribe(CHANNEL, (message) => {
      const relayed = message as Partial<Relayed>;
      if (relayed.node === cluster.nodeId || !relayed.name || !NAMES.has(relayed.name)) return;
      events.receive(relayed.name, relayed.payload as never);
    });
  }
}
