// What a test adds to the environment of the threads and processes it starts from the
// TypeScript sources (the service's worker threads, `records` and the server as children).
//
// They start with the test's execArgv, tap's ts-node loader among them: about half a second of
// CPU each to load TypeScript's compiler, which test/setup/register.mjs (esbuild) makes useless.
// ts-node's preload skips itself when TAP_TYPE_STRIP_ONLY is 1 (tap sets it to 0 when it loads).
export const WITHOUT_TS_NODE = { TAP_TYPE_STRIP_ONLY: '1' } as const
