import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REDIRECT_PATH, SLACK_BOT_SCOPES } from '../../../src/adapters/slack/oauth.js';

// The manifest is YAML for people; these checks only make sure it asks for what the adapter uses.
const manifest = readFileSync(new URL('../../../deploy/slack-app-manifest.yaml', import.meta.url), 'utf8');
const listed = (item: string) =>
  new RegExp(`^\\s*- ${item.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\b`, 'm').test(manifest);

describe('Slack app manifest', () => {
  it('subscribes to every event the adapter handles', () => {
    for (const event of ['app_mention', 'app_home_opened', 'message.channels', 'message.groups', 'message.im']) {
      expect(listed(event), event).toBe(true);
    }
  });

  it('requests the scopes those events and replies need: the ones OAuth installs ask for', () => {
    for (const scope of SLACK_BOT_SCOPES) expect(listed(scope), scope).toBe(true);
    const inManifest = [...manifest.matchAll(/^\s+- ([a-z_.]+:[a-z_.]+|commands)\b/gm)].map((m) => m[1]);
    expect(inManifest.sort()).toEqual([...SLACK_BOT_SCOPES].sort());
    // Approvers named as a user group (issue 43): their members are read with usergroups.users.list.
    expect(listed('usergroups:read')).toBe(true);
  });

  it('tells how many request-URL lines to uncomment for HTTP mode, in the manifest and docs/slack.md', () => {
    const count = [...manifest.matchAll(/^\s*# (?:url|request_url): https:\/\/YOUR-HOST\//gm)].length;
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six'];
    const docs = readFileSync(new URL('../../../docs/slack.md', import.meta.url), 'utf8');
    for (const text of [manifest, docs]) {
      const said = /uncomment the (\w+) `url` \/ `request_url` lines/.exec(text)?.[1];
      expect(said).toBe(words[count]);
    }
  });

  it('enables the Home tab and subscribes to app_home_opened (the App Home view)', () => {
    expect(listed('app_home_opened')).toBe(true);
    expect(manifest).toMatch(/app_home:\s*\n\s*home_tab_enabled: true/);
  });

  it('subscribes to uninstalls and names the OAuth redirect path', () => {
    expect(listed('app_uninstalled')).toBe(true);
    expect(listed('tokens_revoked')).toBe(true);
    expect(manifest).toContain(`https://YOUR-HOST${REDIRECT_PATH}`);
  });

  it('declares /ask and /quote, interactivity, the AI-app view and Socket Mode', () => {
    expect(manifest).toMatch(/- command: \/ask\b/);
    expect(manifest).toMatch(/- command: \/quote\b/);
    expect(manifest).toMatch(/interactivity:\s*\n\s*is_enabled: true/);
    expect(manifest).toMatch(/agent_view:\s*\n\s*agent_description: \S/);
    // The agent view replaces the assistant view (whose events are listed, commented, for older apps).
    expect(manifest).not.toMatch(/^\s*assistant_view:/m);
    expect(listed('assistant_thread_started')).toBe(false);
    expect(manifest).toMatch(/socket_mode_enabled: true/);
  });
});
