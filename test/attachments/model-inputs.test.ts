import { describe, expect, it } from 'vitest';
import { knownImageInput, modelTakesImages } from '../../src/provider/model-inputs.js';
import { captureLogs } from '../helpers/harness.js';

describe('MODEL_INPUT_IMAGES', () => {
  it('auto: images for models known to take them, none for text-only ones', () => {
    for (const model of [
      'gpt-4o-mini',
      'gpt-4.1',
      'gpt-5-mini',
      'o3',
      'gemini-2.5-flash',
      'openai/gpt-4o',
      'claude-3-5-sonnet',
    ])
      expect([model, knownImageInput(model)]).toEqual([model, true]);
    for (const model of ['gpt-3.5-turbo', 'o3-mini', 'deepseek-chat', 'gpt-oss-120b'])
      expect([model, knownImageInput(model)]).toEqual([model, false]);
  });

  it('auto with a model it does not know: off, said once at start', () => {
    const { log, logs } = captureLogs();
    expect(modelTakesImages({ MODEL_INPUT_IMAGES: 'auto' }, 'house-llama', log)).toBe(false);
    expect(logs.lines.filter((l) => String(l.msg).includes('whether model "house-llama" takes images'))).toHaveLength(
      1,
    );
    expect(modelTakesImages({ MODEL_INPUT_IMAGES: 'on' }, 'house-llama', log)).toBe(true);
    expect(modelTakesImages({ MODEL_INPUT_IMAGES: 'off' }, 'gpt-4o', log)).toBe(false);
  });
});
