/** Turns the conversation fetches at a time (ConversationQuery's first); the cost test prices the query with it. */
export const WINDOW = 10;
