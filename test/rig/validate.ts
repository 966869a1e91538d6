/**
 * Khronos glTF validator on GLB bytes, for the rig tests: counts of errors and the error
 * codes (warnings and infos are not failures).
 */
// gltf-validator ships CommonJS without types.
import validator from 'gltf-validator';

/** Errors the Khronos validator reports on a GLB. */
export interface ValidationResult {
  /** Number of errors. */
  errors: number;
  /** Distinct error codes with their counts. */
  codes: Record<string, number>;
}

/** Validate GLB bytes with the Khronos validator. */
export async function validateGlb(bytes: Uint8Array): Promise<ValidationResult> {
  const report = await (validator as { validateBytes: (b: Uint8Array, o?: object) => Promise<{ issues: { numErrors: number; messages: { code: string; severity: number }[] } }> }).validateBytes(bytes, {
    maxIssues: 1000,
  });
  const codes: Record<string, number> = {};
  for (const m of report.issues.messages) if (m.severity === 0) codes[m.code] = (codes[m.code] ?? 0) + 1;
  return { errors: report.issues.numErrors, codes };
}
