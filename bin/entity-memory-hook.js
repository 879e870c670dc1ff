#!/usr/bin/env node
// Hooks installed before the hook command became bin/entity-memory-hook.cjs name this file: it
// runs that one, so their events are still recorded. `entity-memory hooks install` rewrites them to
// name the .cjs directly (`hooks status` says which are older), which starts faster.
import './entity-memory-hook.cjs';
