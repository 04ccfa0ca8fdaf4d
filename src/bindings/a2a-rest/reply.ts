/** What an HTTP+JSON binding answers when it does not stream: status, headers and body. */
export interface RestReply {
  status: number;
  headers: Record<string, string>;
  body?: string;
}
