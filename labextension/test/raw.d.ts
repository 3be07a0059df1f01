/** Vite's `?raw` import: a file's text, for data the JSON import cannot read (lone surrogates). */
declare module '*?raw' {
  const text: string;
  export default text;
}
