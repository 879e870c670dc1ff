// Types of scripts/build-web.mjs (plain Node so that postinstall runs it without tsx).

/** The file in web/dist naming the inputs' hash it was built from. */
export declare const STAMP_FILE: string;
/** The UI's inputs, relative to the package root, sorted; test files excluded. */
export declare function webInputs(root?: string): string[];
/** sha256 over each input's path and content. */
export declare function webInputsHash(root?: string): string;
/** sha256 over each input's path, size and mtime: the stamp's quick check. */
export declare function webInputsStat(root?: string): string;
/** The hash web/dist was built from, or undefined when it or its stamp is missing. */
export declare function builtHash(root?: string): string | undefined;
/** Whether web/dist exists and was built from the current inputs. */
export declare function webBuildIsFresh(root?: string): boolean;
/** Builds web/dist when stale or missing (or forced); throws Vite's error when the build fails. */
export declare function ensureWebBuild(options?: { force?: boolean; log?: (message: string) => void }): Promise<{ built: boolean; hash: string; ms?: number }>;
