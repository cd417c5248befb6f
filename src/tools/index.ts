import type { AgentExtension } from '../agent/agent.js';
import type { Config } from '../config.js';
import type { AnyTool } from './tool.js';

export interface ToolSet {
  tools: AnyTool[];
  extensions: AgentExtension[];
}

/**
 * Every product tool family, each offered only when its provider is configured.
 * Tool families add themselves here (campaigns, competitors, quotes, web search, business).
 */
export function createToolSet(_config: Config): ToolSet {
  const families: ToolSet[] = [];
  return {
    tools: families.flatMap((f) => f.tools),
    extensions: families.flatMap((f) => f.extensions),
  };
}
