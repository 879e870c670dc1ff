/**
 * The schema: imports every domain file (each registers its types on the
 * builder) and builds it. No other side effects.
 */
import { builder } from './builder.js';
import './scalars.js';
import './enums.js';
import './message.js';
import './turn.js';
import './session.js';
import './project.js';
import './project-restore.js';
import './rewind.js';
import './commit.js';
import './subscriptions.js';
import './imports.js';
import './search.js';
import './disk-usage.js';
import './context-export.js';

export const schema = builder.toSchema({ sortSchema: true });
