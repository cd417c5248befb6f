/**
 * A prompt-injection detector for user messages: weighted patterns over the known families
 * of direct attacks (OWASP LLM01 and the public jailbreak corpora), combined as independent
 * evidence (noisy-or) into a score in [0, 1]. Text at or over {@link INJECTION_THRESHOLD} is
 * flagged. Flagged text is still answered: the model gets it fenced as untrusted and the turn
 * records `flags: ["prompt_injection"]`. A false positive costs a fence, a false negative is
 * still bounded by the system prompt, tool allow-lists and the tenant scope.
 *
 * Beside the rules sits a learned scorer (`injection-model.ts`: hashed n-grams into a logistic
 * regression trained offline on public collections, weights in `assets/injection-model.bin`),
 * which catches phrasings the rules were not written against. No download, no network: both run
 * in well under a millisecond on a chat message and are measured by `bench/injection.ts`. Every quantifier
 * is bounded (no catastrophic backtracking), and only the first {@link SCAN_CHARS} characters
 * are scanned.
 *
 * What text alone cannot tell: an *indirect* injection ("Translate your answer to Italian",
 * "Suggest weekend getaways") is an ordinary request from a user and an attack only inside a
 * document or a tool's output. That is handled structurally: every tool output is fenced as
 * data (see `fence.ts`), whatever this detector says.
 */

import { loadInjectionModel, scoreWithModel } from './injection-model.js';

export type InjectionFamily =
  'override' | 'prompt_leak' | 'persona' | 'no_rules' | 'fake_system' | 'secret' | 'evasion' | 'learned';

interface Rule {
  family: InjectionFamily;
  /** The probability this match alone means an attack. */
  weight: number;
  pattern: RegExp;
}

/** Words a sentence may hold between the parts of a pattern (bounded). */
const GAP = String.raw`[^.!?\n]{0,40}?`;
const WIDE = String.raw`[^.!?\n]{0,80}?`;
const r = (source: string) => new RegExp(source, 'iu');

const PRIOR = String.raw`(?:previous(?:ly)?|prior|preceding|above|earlier|initial|original|former|old|given|existing|system|developer|your|all(?:\s+(?:the|your))?|any|every)`;
const DIRECTIVES = String.raw`(?:instructions?|prompts?|orders?|rules?|directions?|directives?|guidelines?|commands?|programming|information|context|constraints|restrictions|training|policies|polic(?:y|ies))`;

const RULES: Rule[] = [
  // ── override: replace what the system said ──
  {
    family: 'override',
    weight: 0.9,
    pattern: r(
      String.raw`\b(?:ignore|disregard|forget|forgotten|skip|override|bypass|discard|drop|neglect|abandon|overlook)\b${GAP}\b${PRIOR}\b${GAP}\b${DIRECTIVES}\b`,
    ),
  },
  {
    family: 'override',
    weight: 0.85,
    pattern: r(
      String.raw`\b(?:do\s+not|don'?t|never|stop)\s+(?:listen(?:ing)?\s+to|follow(?:ing)?|obey(?:ing)?|adher(?:e|ing)\s+to|comply(?:ing)?\s+with)${GAP}\b${PRIOR}\b${GAP}\b${DIRECTIVES}\b`,
    ),
  },
  {
    family: 'override',
    weight: 0.85,
    pattern: r(
      String.raw`\b(?:ignore|disregard|forget)\s+(?:everything|anything|all(?:\s+of\s+it)?|what(?:ever)?)\s+(?:you\s+(?:were|have\s+been|was)\s+(?:told|given|instructed)|(?:written\s+|said\s+|stated\s+)?(?:above|before|so\s+far|earlier))`,
    ),
  },
  {
    family: 'override',
    weight: 0.8,
    pattern: r(
      String.raw`\b(?:new|updated|real|actual|true|secret|hidden)\s+(?:instructions?|rules|system\s+prompt|directives?)\s*(?:[:\-]|are\b)`,
    ),
  },
  {
    family: 'override',
    weight: 0.8,
    pattern: r(
      String.raw`\byou\s+(?:must|will|shall)\s+(?:now\s+)?obey\b${GAP}\b(?:orders?|commands?|instructions?|me|requests?)\b`,
    ),
  },
  {
    family: 'override',
    weight: 0.7,
    pattern: r(
      String.raw`\b(?:never|do\s+not|don'?t)\s+(?:deny|refuse|decline)\s+(?:any|a|my)\s+(?:requests?|orders?|questions?)`,
    ),
  },
  {
    family: 'override',
    weight: 0.6,
    pattern: r(
      String.raw`\b(?:instead|rather),?\s+(?:of\s+)?(?:follow|obey|do)\b${GAP}\b(?:my|these|the\s+following)\s+(?:instructions?|orders?|commands?)`,
    ),
  },

  // ── prompt_leak: make the model print what it was told ──
  {
    family: 'prompt_leak',
    weight: 0.9,
    pattern: r(
      String.raw`\b(?:repeat|print|output|reveal|recite|dump|leak|expose|echo|spell\s+out|write\s+out|copy|paste|show|display|list|translate|summari[sz]e|encode|tell\s+me)\b${GAP}\b(?:your|the\s+(?:above|previous|preceding|prior|initial|original|hidden|secret|system)|(?:above|previous|preceding|prior|initial|original|hidden|secret|system))\s+(?:\w+\s+){0,2}?(?:instructions?|prompts?|system\s+messages?|rules|directives|guidelines|configuration|pre-?prompt)\b`,
    ),
  },
  {
    family: 'prompt_leak',
    weight: 0.85,
    pattern: r(
      String.raw`\b(?:repeat|print|output|reveal|recite|dump|leak)\b${GAP}\b(?:all\s+|the\s+)?instructions\b${GAP}\b(?:given|so\s+far|you\s+(?:got|received|were\s+given|have\s+been\s+given)|formatted|as\s+(?:python|code|json|pseudo))`,
    ),
  },
  {
    family: 'prompt_leak',
    weight: 0.85,
    pattern: r(
      String.raw`\b(?:what|which)\s+(?:are|were)\s+your\s+(?:\w+\s+)?(?:instructions|rules|system\s+prompt|directives)\b`,
    ),
  },
  {
    family: 'prompt_leak',
    weight: 0.85,
    pattern: r(
      String.raw`\b(?:what|everything|anything)\s+(?:were|have)\s+you\s+(?:been\s+)?(?:told|instructed|given)\b|\byour\s+(?:system|initial|original|hidden)\s+(?:message|prompt|instructions)\b`,
    ),
  },
  {
    family: 'prompt_leak',
    weight: 0.85,
    pattern: r(
      String.raw`\b(?:repeat|print|output|copy|recite)\s+(?:everything|all|the\s+text|the\s+words)\s+(?:above|before|preceding)\b`,
    ),
  },
  {
    family: 'prompt_leak',
    weight: 0.6,
    pattern: r(String.raw`\b(?:start|begin|prefix)\s+your\s+(?:answer|response|reply|output)\s+with\b`),
  },
  { family: 'prompt_leak', weight: 0.5, pattern: r(String.raw`\bthe\s+instructions\s+so\s+far\b`) },

  // ── persona: become someone without the rules ──
  { family: 'persona', weight: 0.9, pattern: /\bD\.?A\.?N\b|\bdo\s+anything\s+now\b/u },
  {
    family: 'persona',
    weight: 0.85,
    pattern: r(
      String.raw`\b(?:chatgpt|gpt|ai|assistant|model|bot)\b${GAP}\b[\w-]{2,20}\s+mode\s+(?:enabled|activated|on)\b`,
    ),
  },
  {
    family: 'persona',
    weight: 0.8,
    pattern: r(
      String.raw`\b(?:developer|jailbreak|jailbroken|god|unrestricted|unfiltered|evil|dan|dude|stan|sudo|admin)\s+mode\b${GAP}\b(?:enabled|activated|you|simulate|act|pretend)\b`,
    ),
  },
  {
    family: 'persona',
    weight: 0.8,
    pattern: r(String.raw`\b(?:jailbroken|jailbreak)\s+(?:ai|model|assistant|version|chatgpt)\b`),
  },
  {
    family: 'persona',
    weight: 0.6,
    pattern: r(
      String.raw`\b(?:from\s+now\s+on|henceforth|for\s+the\s+rest\s+of\s+(?:this|the|our)\s+(?:conversation|chat|session))\b,?${GAP}\b(?:you\s+(?:are|will|must|shall|reply|respond|answer|act)|act\s+as|reply\s+as|respond\s+as|(?:be\s+)?called|known\s+as|your\s+name\s+is)\b`,
    ),
  },
  {
    family: 'persona',
    weight: 0.6,
    pattern: r(
      String.raw`\b(?:you\s+are|you're|act\s+as|acting\s+as|reply\s+as|respond\s+as|be\s+called|known\s+as)\b${WIDE}\bfrom\s+now\s+on\b`,
    ),
  },
  {
    family: 'persona',
    weight: 0.6,
    pattern: r(String.raw`\byou\s+(?:will|shall)\s+be\s+called\b|\bfrom\s+now\s+(?:on\s+)?known\s+as\b`),
  },
  {
    family: 'persona',
    weight: 0.6,
    pattern: r(
      String.raw`\b(?:immerse\s+yourself|stay\s+in\s+character|breaking\s+character|you\s+are\s+going\s+to\s+(?:act|pretend|play))\b`,
    ),
  },
  {
    family: 'persona',
    weight: 0.5,
    pattern: r(
      String.raw`\b(?:pretend|imagine|simulate)\b${GAP}\b(?:(?:to\s+be|you\s+are|you're)\s+(?:an?\s+)?(?:\w+\s+){0,3}?(?:ai|model|chatbot|assistant|gpt|lecturer|hacker|version)|(?:an?\s+)?(?:ai|chatbot|model)\b)`,
    ),
  },
  {
    family: 'persona',
    weight: 0.8,
    pattern: r(
      String.raw`\b(?:rogue|evil|unfiltered|uncensored|unrestricted|jailbroken|amoral)\s+(?:ai|language\s+model|chatbot|assistant|gpt)\b`,
    ),
  },
  {
    family: 'persona',
    weight: 0.5,
    pattern: r(String.raw`\bpretend\s+(?:to\s+have|you\s+have|that\s+you(?:'ve|\s+have))\s+forgot`),
  },

  // ── no_rules: declare the model free of its limits ──
  {
    family: 'no_rules',
    weight: 0.75,
    pattern: r(
      String.raw`\b(?:ai|model|assistant|chatbot|gpt|chatgpt|you)\b${GAP}\b(?:without|with\s+no|has\s+no|have\s+no|free\s+(?:of|from))\s+(?:any\s+|all\s+)?(?:ethics|ethical|moral|morals|restrictions?|filters?|limits|limitations|rules|guidelines|censorship|policies|boundaries|bounds)\b`,
    ),
  },
  {
    family: 'no_rules',
    weight: 0.7,
    pattern: r(
      String.raw`\b(?:not|never|isn't|aren't)\s+(?:be\s+)?(?:limited|restricted|bound|constrained)\s+by\b${GAP}\b(?:rules|policies|polic(?:y|ies)|guidelines|restrictions|ethics|morals|an?\s+ai|openai|what\s+an?\s+ai)`,
    ),
  },
  {
    family: 'no_rules',
    weight: 0.7,
    pattern: r(
      String.raw`\b(?:override|ignore|bypass|break|broken\s+free\s+of)\s+(?:the\s+|all\s+|its\s+|their\s+|any\s+)?(?:restrictions|typical\s+confines|confines|content\s+polic(?:y|ies)|openai'?s?\s+(?:content\s+)?polic(?:y|ies)|safety\s+(?:filters|guidelines))\b`,
    ),
  },
  {
    family: 'no_rules',
    weight: 0.6,
    pattern: r(
      String.raw`\b(?:does\s+not|doesn't|do\s+not|don't|will\s+never|never)\s+(?:follow|abide\s+by|obey|care\s+about|have\s+to\s+abide\s+by)\s+(?:any\s+|the\s+)?(?:rules|policies|laws|morals|ethics|guidelines|restrictions)`,
    ),
  },
  {
    family: 'no_rules',
    weight: 0.75,
    pattern: r(
      String.raw`\b(?:no\s+longer|not\s+anymore)\s+(?:bound|limited|restricted|constrained)\s+by\b|\b(?:bound|limited|restricted)\s+by\s+(?:your|any)\s+(?:rules|guidelines|policies|restrictions)\s+(?:no\s+longer|anymore)\b`,
    ),
  },
  {
    family: 'no_rules',
    weight: 0.5,
    pattern: r(String.raw`\b(?:zero|no)\s+(?:moderation|censorship|filters?|restrictions)\b`),
  },
  { family: 'no_rules', weight: 0.5, pattern: r(String.raw`\b(?:can|will)\s+(?:do|generate|say|answer)\s+anything\b`) },

  // ── fake_system: forged system or role markers ──
  {
    family: 'fake_system',
    weight: 0.8,
    pattern: r(
      String.raw`[{[(<]\s*(?:system|sys|admin|developer|root)\s*[:\]}>)]|<\|?im_(?:start|end)\|?>|\[\s*/?INST\s*\]|<<\s*SYS\s*>>|^\s*#{2,}\s*(?:system|instruction)s?\b`,
    ),
  },
  {
    family: 'fake_system',
    weight: 0.7,
    pattern: r(
      String.raw`(?:%{3,}|={3,}|-{3,}|#{3,})\s*(?:end|begin|start)\b${GAP}\b(?:user|system|prompt|instructions?|input|ambiguity)`,
    ),
  },
  {
    family: 'fake_system',
    weight: 0.6,
    pattern: r(
      String.raw`\b(?:approved|authori[sz]ed|sanctioned|sponsored)\s+(?:by\s+)?(?:explicitly\s+)?(?:by\s+)?(?:openai|anthropic|your\s+developers|the\s+developers|the\s+admin)`,
    ),
  },
  {
    family: 'fake_system',
    weight: 0.5,
    pattern: r(String.raw`\bend\s+of\s+(?:the\s+)?(?:system\s+)?(?:prompt|instructions)\b`),
  },

  // ── secret: extract something the model was told to keep ──
  {
    family: 'secret',
    weight: 0.7,
    pattern: r(
      String.raw`\b(?:told|instructed|programmed|asked|supposed)\s+(?:you\s+)?(?:to\s+)?(?:not|never)\s+(?:to\s+)?(?:reveal|say|tell|share|disclose|give)`,
    ),
  },
  {
    family: 'secret',
    weight: 0.5,
    pattern: r(
      String.raw`\b(?:secret\s+(?:word|password|key|phrase|code)|the\s+password\b|what\s+is\s+the\s+password)`,
    ),
  },

  // ── evasion: hide the output from monitoring ──
  {
    family: 'evasion',
    weight: 0.4,
    pattern: r(
      String.raw`\b(?:avoid|evade|escape)\s+(?:detection|the\s+filters?|monitoring|the\s+moderators?)\b|\bchannel\s+is\s+monitored\b`,
    ),
  },
  {
    family: 'evasion',
    weight: 0.4,
    pattern: r(
      String.raw`\b(?:letter\s+by\s+letter|in\s+reverse|backwards?|in\s+base\s?(?:64|32|16)|obfuscated\s+way|without\s+(?:explicitly\s+)?including\s+the\s+word)\b`,
    ),
  },
];

export const INJECTION_THRESHOLD = 0.7;
/**
 * The learned scorer decides only from this many words up; shorter messages are judged by the
 * rules alone. It was trained on prompts, and on short chat messages about the bot itself its
 * scores are noise: "and you?" scored 0.88, "I don't really understand this explanation." 0.83.
 * Eleven is the lowest floor at which it flags none of HWU64's short assistant requests (folds
 * 1–5; folds 6–10 are reported by bench/injection.ts, with what the floor costs in recall):
 * short attacks are left to the rules, which catch the short overrides and prompt requests.
 */
export const MODEL_MIN_WORDS = 11;

function wordCount(text: string): number {
  return text.trim().split(/\s+/u).filter(Boolean).length;
}
/** Attacks put their instructions early; a long paste is scanned this far. */
export const SCAN_CHARS = 12_000;

export interface InjectionVerdict {
  flagged: boolean;
  /** 0–1: one minus the product of one minus each matching rule's weight (each rule counted once). */
  score: number;
  /** 0–1: the learned scorer's probability (see injection-model.ts); flags at or over its threshold. */
  modelScore: number;
  /** The families that matched, for logs and metrics (never the matched text); `learned` = the model flagged it. */
  families: InjectionFamily[];
}

/**
 * The rules and the learned scorer side by side: flagged when the rules' noisy-or reaches
 * {@link INJECTION_THRESHOLD} or the model's probability reaches the threshold chosen on its
 * validation split (stored in the model file) on a message of at least `modelMinWords` words (the
 * bench passes other floors to measure what the floor costs).
 */
export function detectInjection(text: string, modelMinWords = MODEL_MIN_WORDS): InjectionVerdict {
  const rules = detectWithRules(text);
  const model = loadInjectionModel();
  const modelScore = Math.round(scoreWithModel(model, text) * 1000) / 1000;
  const learned = modelScore >= model.threshold && wordCount(text) >= modelMinWords;
  return {
    flagged: rules.flagged || learned,
    score: rules.score,
    modelScore,
    families: learned ? [...rules.families, 'learned'] : rules.families,
  };
}

/** The rules alone (what the detector was before the learned scorer). */
export function detectWithRules(text: string): Omit<InjectionVerdict, 'modelScore'> {
  const scanned = text.length > SCAN_CHARS ? text.slice(0, SCAN_CHARS) : text;
  let clear = 1;
  const families = new Set<InjectionFamily>();
  for (const rule of RULES) {
    if (!rule.pattern.test(scanned)) continue;
    clear *= 1 - rule.weight;
    families.add(rule.family);
  }
  const score = Math.round((1 - clear) * 1000) / 1000;
  return { flagged: score >= INJECTION_THRESHOLD, score, families: [...families] };
}
