// Whether the suite runs in CI: any CI value but '', 0, false or no (CI systems set CI=true,
// .ci/run may set CI=1). In CI a missing PostgreSQL, Redis or Chromium fails instead of skipping.
export const IN_CI = !['', '0', 'false', 'no'].includes((process.env['CI'] ?? '').toLowerCase())
