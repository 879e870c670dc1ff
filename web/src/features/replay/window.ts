/** Turns the conversation fetches at a time (ConversationQuery's first); the cost test prices the query with it. */
export const WINDOW = 10;

/** Commits a page of the timeline lists (TimelinePageQuery's first). */
export const TIMELINE_PAGE = 50;
