/**
 * Chat: messages, rooms, reactions, moderation on one instance and on two, chat over HTTP and under faults: the capability's end-to-end parts (`*.part.ts` beside this file), each in a describe of its own and in the
 * order listed, run as one jest file so jest sets up its realm and loads its modules once for all of them. Each part
 * keeps its own servers and databases: its beforeAll and afterAll run inside its describe, before and after its own
 * tests.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a part registers its tests where it is required: inside its describe */

describe('chat', () => {
  require('./chat.part');
});
describe('chat-room', () => {
  require('./chat-room.part');
});
describe('chat-live', () => {
  require('./chat-live.part');
});
describe('chat-http', () => {
  require('./chat-http.part');
});
describe('chat-reactions-fast', () => {
  require('./chat-reactions-fast.part');
});
describe('chat-moderation', () => {
  require('./chat-moderation.part');
});
describe('chat-moderation-instances', () => {
  require('./chat-moderation-instances.part');
});
describe('chat-faults', () => {
  require('./chat-faults.part');
});
