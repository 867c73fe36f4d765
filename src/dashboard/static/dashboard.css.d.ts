/** Served as text by the Worker (a wrangler Text rule). */
declare const text: string;
export default text;
