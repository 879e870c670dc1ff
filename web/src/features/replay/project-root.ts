/**
 * The folder of the session's project (its workdir), for showing the paths of the agent's tool
 * calls relative to it (tools.ts, relativePath); null when the session has no project.
 */
import { createContext } from 'react';

export const ProjectRoot = createContext<string | null>(null);
