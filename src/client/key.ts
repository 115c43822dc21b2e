/** The link-request key lives in src/link-key.ts (shared by the client and the mock); re-exported here for the modules that imported it from the client. */
export { linkRequestKey, type LinkRequestIdentity } from '../link-key.js';
