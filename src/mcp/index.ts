export { jsonOrText, organizationPath, type FloeApi } from './floe-api.js'
export { mcpRoutes } from './mcp.routes.js'
