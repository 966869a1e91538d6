/**
 * Khronos glTF validator on GLB bytes, for the rig tests: counts of errors and the error
 * codes (warnings and infos are not failures).
 */
import { createRequire } from 'node:module';

interface ValidatorReport {
  issues: { numErrors: number; messages: { code: string; severity: number }[] };
}
// gltf-validator ships CommonJS without types.
const validator = createRequire(import.meta.url)('gltf-validator') as { validateBytes(b: Uint8Array, o?: object): Promise<ValidatorReport> };

/** Errors the Khronos validator reports on a GLB. */
export interface ValidationResult {
  /** Number of errors. */
  errors: number;
  /** Distinct error codes with their counts. */
  codes: Record<string, number>;
}

/** Validate GLB bytes with the Khronos validator. */
export async function validateGlb(bytes: Uint8Array): Promise<ValidationResult> {
  const report = await validator.validateBytes(bytes, { maxIssues: 1000 });
  const codes: Record<string, number> = {};
  for (const m of report.issues.messages) if (m.severity === 0) codes[m.code] = (codes[m.code] ?? 0) + 1;
  return { errors: report.issues.numErrors, codes };
}
