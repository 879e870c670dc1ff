/**
 * The dirty-tree banner's state, kept apart from React so it can be tested on its own:
 * at most one warning per project (a newer one replaces the older), newest first,
 * each dismissable.
 */

export interface BannerWarning {
  projectId: string;
  projectName: string;
  message: string;
  dirtyPaths: string[];
  reason: string | null;
  turnNumber: number;
  sessionId: string;
  sessionTitle: string | null;
  /** When the server sent it (RFC 3339). */
  at: string;
}

export type WarningAction = { type: 'add'; warning: BannerWarning } | { type: 'dismiss'; projectId: string };

export function warningsReducer(state: BannerWarning[], action: WarningAction): BannerWarning[] {
  switch (action.type) {
    case 'add': {
      const { warning } = action;
      const older = state.find((w) => w.projectId === warning.projectId);
      // Events can arrive out of order after a reconnect: never let an older one win.
      if (older && Date.parse(older.at) > Date.parse(warning.at)) return state;
      return [warning, ...state.filter((w) => w.projectId !== warning.projectId)];
    }
    case 'dismiss':
      return state.filter((w) => w.projectId !== action.projectId);
  }
}
