declare module "*.md" {
  const text: string;
  export default text;
}
declare module "*.sql" {
  const text: string;
  export default text;
}
declare module "uplot/dist/uPlot.iife.min.js" {
  const text: string;
  export default text;
}
declare module "uplot/dist/uPlot.min.css" {
  const text: string;
  export default text;
}
declare module "*.bin" {
  const data: ArrayBuffer;
  export default data;
}
