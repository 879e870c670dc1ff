// Types of scripts/build-server.mjs (plain Node so that postinstall and the bin run it without tsx).

/** The file in dist/ naming the inputs' hash it was built from. */
export declare const STAMP_FILE: string;
/** The server's inputs (src/, the tsconfigs, package-lock.json), relative to the package root, sorted. */
export declare function serverInputs(root?: string): string[];
/** sha256 over each input's path and content. */
export declare function serverInputsHash(root?: string): string;
/** The hash dist/ was built from, or undefined when it or its stamp is missing. */
export declare function builtServerHash(root?: string): string | undefined;
/** Whether dist/ exists and was built from the current inputs. */
export declare function serverBuildIsFresh(root?: string): boolean;
/** Bundles src/ into dist/ when stale or missing (or forced); throws esbuild's errors when the build fails. */
export declare function ensureServerBuild(options?: { force?: boolean; log?: (message: string) => void }): Promise<{ built: boolean; hash: string; ms?: number }>;
