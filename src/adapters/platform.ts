import type { Switchboard } from './switchboard.js';
import type { Config } from '../config/index.js';
import type { NodeRoute } from './http/server.js';

/** What an adapter is given: the agent, the inbox, the state store, a logger and its own slice of the configuration. */
export type AdapterDeps<K extends keyof Config> = Pick<Switchboard, 'agent' | 'inbox' | 'kv' | 'log'> & {
  config: Pick<Config, K>;
};

/**
 * A chat platform connection (Slack, Discord): started by `serve()` when its credentials are
 * set. It records each event in the inbox before it acks, and registers the delivery function
 * that answers the inbox's entries for its platform.
 */
export interface PlatformAdapter {
  name: string;
  /** Raw HTTP routes it serves on the shared server (Slack's Events API, Discord's interactions endpoint). */
  routes?: NodeRoute[];
  start(): Promise<void>;
  /** For /readyz: whether its platform connection is up. */
  ready?(): boolean | Promise<boolean>;
  /** Stops receiving events (turns already recorded keep running until the inbox drains). */
  stop(): Promise<void>;
  /** Releases its connections, after the inbox has drained. */
  close?(): Promise<void>;
}
