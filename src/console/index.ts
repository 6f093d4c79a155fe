export { consoleRoutes, type ConsoleFilesOptions } from './console.routes.js'
