/**
 * abha-link/mock: a local mock of the ABHA identity and care-context linking
 * service (all 12 endpoints, synthetic accounts, fault injection) and the
 * OpenAPI 3.1 document of the service.
 *
 * @example
 * import { startMockServer } from 'abha-link/mock'
 * const mock = await startMockServer()
 * console.log(mock.url, mock.apiKey)
 * await mock.close()
 *
 * @packageDocumentation
 */
export { startMockServer, type LinkRecord, type MockEvent, type MockServer, type MockServerOptions, type MockStats } from './server.js';
export type { FaultController, Fault, FaultRule, FaultTarget } from './faults.js';
export { parseSeed, type MockAccount, type MockSeed } from './accounts.js';
export { buildOpenApiDocument, type Json, type OpenApiDocument, type OpenApiOptions } from './openapi.js';
