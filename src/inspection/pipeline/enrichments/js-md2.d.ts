/** js-md2 ships no types: its default export hashes a text (UTF-8) to lowercase hex. */
declare module 'js-md2' {
  const md2: (message: string) => string
  export default md2
}
