/** The interop suite (interop-suite.ts) against one Agentport process on its embedded store. */
import { startTestServer } from '../support/server.js';
import { describeInterop } from './interop-suite.js';
import { SERVER_CONFIG } from './sdk-support.js';

describeInterop('one server', () => startTestServer(SERVER_CONFIG));
