import uplotJs from "uplot/dist/uPlot.iife.min.js";
import uplotCss from "uplot/dist/uPlot.min.css";
import appJs from "./static/dashboard-client.js";
import appCss from "./static/dashboard.css";
import { hash32 } from "../core/hash-embedder";

export interface Asset {
  body: string;
  type: string;
  /** A fingerprint of the body: it versions the asset's URL, so a changed file is never served stale. */
  version: string;
}

const asset = (body: string, type: string): Asset => ({ body, type, version: hash32(body).toString(36) });

/** Everything the dashboard loads, bundled into the Worker so it works offline and without a CDN. */
export const ASSETS: Record<string, Asset> = {
  "app.js": asset(appJs, "text/javascript; charset=utf-8"),
  "app.css": asset(appCss, "text/css; charset=utf-8"),
  "uplot.js": asset(uplotJs, "text/javascript; charset=utf-8"),
  "uplot.css": asset(uplotCss, "text/css; charset=utf-8"),
};

export const ASSET_BASE = "/dashboard/static";

/** The asset a URL names: own entries only, so `__proto__` or `constructor` is no asset (a 404, not a 500). */
export const assetNamed = (name: string): Asset | undefined => (Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined);

export const assetUrl = (name: keyof typeof ASSETS & string) => `${ASSET_BASE}/${name}?v=${ASSETS[name]!.version}`;
