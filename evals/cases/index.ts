import type { EvalCase } from '../case.js';
import business from './business.js';
import campaigns from './campaigns.js';
import competitors from './competitors.js';
import quotes from './quotes.js';
import web from './web.js';

/** Every case of the suite, family by family (evals/README.md says how to add one). */
export const ALL_CASES: readonly EvalCase[] = [...campaigns, ...competitors, ...quotes, ...business, ...web];
