// Built by src/dashboard/build-client.mjs from src/dashboard/client/*.ts; do not edit (run `node src/dashboard/build-client.mjs`).
"use strict";
(() => {
  // node_modules/openapi-fetch/dist/index.mjs
  var PATH_PARAM_RE = /\{[^{}]+\}/g;
  var supportsRequestInitExt = () => {
    return typeof process === "object" && Number.parseInt(process?.versions?.node?.substring(0, 2)) >= 18 && process.versions.undici;
  };
  function randomID() {
    return Math.random().toString(36).slice(2, 11);
  }
  function createClient(clientOptions) {
    let {
      baseUrl = "",
      Request: CustomRequest = globalThis.Request,
      fetch: baseFetch = globalThis.fetch,
      querySerializer: globalQuerySerializer,
      bodySerializer: globalBodySerializer,
      pathSerializer: globalPathSerializer,
      headers: baseHeaders,
      requestInitExt = void 0,
      ...baseOptions
    } = { ...clientOptions };
    requestInitExt = supportsRequestInitExt() ? requestInitExt : void 0;
    baseUrl = removeTrailingSlash(baseUrl);
    const globalMiddlewares = [];
    async function coreFetch(schemaPath, fetchOptions) {
      const {
        baseUrl: localBaseUrl,
        fetch: fetch2 = baseFetch,
        Request: Request2 = CustomRequest,
        headers,
        params = {},
        parseAs = "json",
        querySerializer: requestQuerySerializer,
        bodySerializer = globalBodySerializer ?? defaultBodySerializer,
        pathSerializer: requestPathSerializer,
        body: body2,
        middleware: requestMiddlewares = [],
        ...init
      } = fetchOptions || {};
      let finalBaseUrl = baseUrl;
      if (localBaseUrl) {
        finalBaseUrl = removeTrailingSlash(localBaseUrl) ?? baseUrl;
      }
      let querySerializer = typeof globalQuerySerializer === "function" ? globalQuerySerializer : createQuerySerializer(globalQuerySerializer);
      if (requestQuerySerializer) {
        querySerializer = typeof requestQuerySerializer === "function" ? requestQuerySerializer : createQuerySerializer({
          ...typeof globalQuerySerializer === "object" ? globalQuerySerializer : {},
          ...requestQuerySerializer
        });
      }
      const pathSerializer = requestPathSerializer || globalPathSerializer || defaultPathSerializer;
      const serializedBody = body2 === void 0 ? void 0 : bodySerializer(
        body2,
        // Note: we declare mergeHeaders() both here and below because it’s a bit of a chicken-or-egg situation:
        // bodySerializer() needs all headers so we aren’t dropping ones set by the user, however,
        // the result of this ALSO sets the lowest-priority content-type header. So we re-merge below,
        // setting the content-type at the very beginning to be overwritten.
        // Lastly, based on the way headers work, it’s not a simple “present-or-not” check becauase null intentionally un-sets headers.
        mergeHeaders(baseHeaders, headers, params.header)
      );
      const finalHeaders = mergeHeaders(
        // with no body, we should not to set Content-Type
        serializedBody === void 0 || // if serialized body is FormData; browser will correctly set Content-Type & boundary expression
        serializedBody instanceof FormData ? {} : {
          "Content-Type": "application/json"
        },
        baseHeaders,
        headers,
        params.header
      );
      const finalMiddlewares = [...globalMiddlewares, ...requestMiddlewares];
      const requestInit = {
        redirect: "follow",
        ...baseOptions,
        ...init,
        body: serializedBody,
        headers: finalHeaders
      };
      let id;
      let options;
      let request = new Request2(
        createFinalURL(schemaPath, { baseUrl: finalBaseUrl, params, querySerializer, pathSerializer }),
        requestInit
      );
      let response;
      for (const key in init) {
        if (!(key in request)) {
          request[key] = init[key];
        }
      }
      if (finalMiddlewares.length) {
        id = randomID();
        options = Object.freeze({
          baseUrl: finalBaseUrl,
          fetch: fetch2,
          parseAs,
          querySerializer,
          bodySerializer,
          pathSerializer
        });
        for (const m of finalMiddlewares) {
          if (m && typeof m === "object" && typeof m.onRequest === "function") {
            const result = await m.onRequest({
              request,
              schemaPath,
              params,
              options,
              id
            });
            if (result) {
              if (result instanceof Request2) {
                request = result;
              } else if (result instanceof Response) {
                response = result;
                break;
              } else {
                throw new Error("onRequest: must return new Request() or Response() when modifying the request");
              }
            }
          }
        }
      }
      if (!response) {
        try {
          response = await fetch2(request, requestInitExt);
        } catch (error2) {
          let errorAfterMiddleware = error2;
          if (finalMiddlewares.length) {
            for (let i = finalMiddlewares.length - 1; i >= 0; i--) {
              const m = finalMiddlewares[i];
              if (m && typeof m === "object" && typeof m.onError === "function") {
                const result = await m.onError({
                  request,
                  error: errorAfterMiddleware,
                  schemaPath,
                  params,
                  options,
                  id
                });
                if (result) {
                  if (result instanceof Response) {
                    errorAfterMiddleware = void 0;
                    response = result;
                    break;
                  }
                  if (result instanceof Error) {
                    errorAfterMiddleware = result;
                    continue;
                  }
                  throw new Error("onError: must return new Response() or instance of Error");
                }
              }
            }
          }
          if (errorAfterMiddleware) {
            throw errorAfterMiddleware;
          }
        }
        if (finalMiddlewares.length) {
          for (let i = finalMiddlewares.length - 1; i >= 0; i--) {
            const m = finalMiddlewares[i];
            if (m && typeof m === "object" && typeof m.onResponse === "function") {
              const result = await m.onResponse({
                request,
                response,
                schemaPath,
                params,
                options,
                id
              });
              if (result) {
                if (!(result instanceof Response)) {
                  throw new Error("onResponse: must return new Response() when modifying the response");
                }
                response = result;
              }
            }
          }
        }
      }
      const contentLength = response.headers.get("Content-Length");
      if (response.status === 204 || request.method === "HEAD" || contentLength === "0" && !response.headers.get("Transfer-Encoding")?.includes("chunked")) {
        return response.ok ? { data: void 0, response } : { error: void 0, response };
      }
      if (response.ok) {
        const getResponseData = async () => {
          if (parseAs === "stream") {
            return response.body;
          }
          if (parseAs === "json" && !contentLength) {
            const raw = await response.text();
            return raw ? JSON.parse(raw) : void 0;
          }
          return await response[parseAs]();
        };
        return { data: await getResponseData(), response };
      }
      let error = await response.text();
      try {
        error = JSON.parse(error);
      } catch {
      }
      return { error, response };
    }
    return {
      request(method, url, init) {
        return coreFetch(url, { ...init, method: method.toUpperCase() });
      },
      /** Call a GET endpoint */
      GET(url, init) {
        return coreFetch(url, { ...init, method: "GET" });
      },
      /** Call a PUT endpoint */
      PUT(url, init) {
        return coreFetch(url, { ...init, method: "PUT" });
      },
      /** Call a POST endpoint */
      POST(url, init) {
        return coreFetch(url, { ...init, method: "POST" });
      },
      /** Call a DELETE endpoint */
      DELETE(url, init) {
        return coreFetch(url, { ...init, method: "DELETE" });
      },
      /** Call a OPTIONS endpoint */
      OPTIONS(url, init) {
        return coreFetch(url, { ...init, method: "OPTIONS" });
      },
      /** Call a HEAD endpoint */
      HEAD(url, init) {
        return coreFetch(url, { ...init, method: "HEAD" });
      },
      /** Call a PATCH endpoint */
      PATCH(url, init) {
        return coreFetch(url, { ...init, method: "PATCH" });
      },
      /** Call a TRACE endpoint */
      TRACE(url, init) {
        return coreFetch(url, { ...init, method: "TRACE" });
      },
      /** Register middleware */
      use(...middleware) {
        for (const m of middleware) {
          if (!m) {
            continue;
          }
          if (typeof m !== "object" || !("onRequest" in m || "onResponse" in m || "onError" in m)) {
            throw new Error("Middleware must be an object with one of `onRequest()`, `onResponse() or `onError()`");
          }
          globalMiddlewares.push(m);
        }
      },
      /** Unregister middleware */
      eject(...middleware) {
        for (const m of middleware) {
          const i = globalMiddlewares.indexOf(m);
          if (i !== -1) {
            globalMiddlewares.splice(i, 1);
          }
        }
      }
    };
  }
  function serializePrimitiveParam(name, value, options) {
    if (value === void 0 || value === null) {
      return "";
    }
    if (typeof value === "object") {
      throw new Error(
        "Deeply-nested arrays/objects aren’t supported. Provide your own `querySerializer()` to handle these."
      );
    }
    return `${name}=${options?.allowReserved === true ? value : encodeURIComponent(value)}`;
  }
  function serializeObjectParam(name, value, options) {
    if (!value || typeof value !== "object") {
      return "";
    }
    const values = [];
    const joiner = {
      simple: ",",
      label: ".",
      matrix: ";"
    }[options.style] || "&";
    if (options.style !== "deepObject" && options.explode === false) {
      for (const k in value) {
        values.push(k, options.allowReserved === true ? value[k] : encodeURIComponent(value[k]));
      }
      const final2 = values.join(",");
      switch (options.style) {
        case "form": {
          return `${name}=${final2}`;
        }
        case "label": {
          return `.${final2}`;
        }
        case "matrix": {
          return `;${name}=${final2}`;
        }
        default: {
          return final2;
        }
      }
    }
    for (const k in value) {
      const finalName = options.style === "deepObject" ? `${name}[${k}]` : k;
      values.push(serializePrimitiveParam(finalName, value[k], options));
    }
    const final = values.join(joiner);
    return options.style === "label" || options.style === "matrix" ? `${joiner}${final}` : final;
  }
  function serializeArrayParam(name, value, options) {
    if (!Array.isArray(value)) {
      return "";
    }
    if (options.explode === false) {
      const joiner2 = { form: ",", spaceDelimited: "%20", pipeDelimited: "|" }[options.style] || ",";
      const final = (options.allowReserved === true ? value : value.map((v) => encodeURIComponent(v))).join(joiner2);
      switch (options.style) {
        case "simple": {
          return final;
        }
        case "label": {
          return `.${final}`;
        }
        case "matrix": {
          return `;${name}=${final}`;
        }
        // case "spaceDelimited":
        // case "pipeDelimited":
        default: {
          return `${name}=${final}`;
        }
      }
    }
    const joiner = { simple: ",", label: ".", matrix: ";" }[options.style] || "&";
    const values = [];
    for (const v of value) {
      if (options.style === "simple" || options.style === "label") {
        values.push(options.allowReserved === true ? v : encodeURIComponent(v));
      } else {
        values.push(serializePrimitiveParam(name, v, options));
      }
    }
    return options.style === "label" || options.style === "matrix" ? `${joiner}${values.join(joiner)}` : values.join(joiner);
  }
  function createQuerySerializer(options) {
    return function querySerializer(queryParams) {
      const search = [];
      if (queryParams && typeof queryParams === "object") {
        for (const name in queryParams) {
          const value = queryParams[name];
          if (value === void 0 || value === null) {
            continue;
          }
          if (Array.isArray(value)) {
            if (value.length === 0) {
              continue;
            }
            search.push(
              serializeArrayParam(name, value, {
                style: "form",
                explode: true,
                ...options?.array,
                allowReserved: options?.allowReserved || false
              })
            );
            continue;
          }
          if (typeof value === "object") {
            search.push(
              serializeObjectParam(name, value, {
                style: "deepObject",
                explode: true,
                ...options?.object,
                allowReserved: options?.allowReserved || false
              })
            );
            continue;
          }
          search.push(serializePrimitiveParam(name, value, options));
        }
      }
      return search.join("&");
    };
  }
  function defaultPathSerializer(pathname, pathParams) {
    let nextURL = pathname;
    for (const match of pathname.match(PATH_PARAM_RE) ?? []) {
      let name = match.substring(1, match.length - 1);
      let explode = false;
      let style = "simple";
      if (name.endsWith("*")) {
        explode = true;
        name = name.substring(0, name.length - 1);
      }
      if (name.startsWith(".")) {
        style = "label";
        name = name.substring(1);
      } else if (name.startsWith(";")) {
        style = "matrix";
        name = name.substring(1);
      }
      if (!pathParams || pathParams[name] === void 0 || pathParams[name] === null) {
        continue;
      }
      const value = pathParams[name];
      if (Array.isArray(value)) {
        nextURL = nextURL.replace(match, serializeArrayParam(name, value, { style, explode }));
        continue;
      }
      if (typeof value === "object") {
        nextURL = nextURL.replace(match, serializeObjectParam(name, value, { style, explode }));
        continue;
      }
      if (style === "matrix") {
        nextURL = nextURL.replace(match, `;${serializePrimitiveParam(name, value)}`);
        continue;
      }
      nextURL = nextURL.replace(match, style === "label" ? `.${encodeURIComponent(value)}` : encodeURIComponent(value));
    }
    return nextURL;
  }
  function defaultBodySerializer(body2, headers) {
    if (body2 instanceof FormData) {
      return body2;
    }
    if (headers) {
      const contentType = headers.get instanceof Function ? headers.get("Content-Type") ?? headers.get("content-type") : headers["Content-Type"] ?? headers["content-type"];
      if (contentType === "application/x-www-form-urlencoded") {
        return new URLSearchParams(body2).toString();
      }
    }
    return JSON.stringify(body2);
  }
  function createFinalURL(pathname, options) {
    let finalURL = `${options.baseUrl}${pathname}`;
    if (options.params?.path) {
      finalURL = options.pathSerializer(finalURL, options.params.path);
    }
    let search = options.querySerializer(options.params.query ?? {});
    if (search.startsWith("?")) {
      search = search.substring(1);
    }
    if (search) {
      finalURL += `?${search}`;
    }
    return finalURL;
  }
  function mergeHeaders(...allHeaders) {
    const finalHeaders = new Headers();
    for (const h2 of allHeaders) {
      if (!h2 || typeof h2 !== "object") {
        continue;
      }
      const iterator = h2 instanceof Headers ? h2.entries() : Object.entries(h2);
      for (const [k, v] of iterator) {
        if (v === null) {
          finalHeaders.delete(k);
        } else if (Array.isArray(v)) {
          for (const v2 of v) {
            finalHeaders.append(k, v2);
          }
        } else if (v !== void 0) {
          finalHeaders.set(k, v);
        }
      }
    }
    return finalHeaders;
  }
  function removeTrailingSlash(url) {
    if (url.endsWith("/")) {
      return url.substring(0, url.length - 1);
    }
    return url;
  }

  // client/src/errors.ts
  var PraxisError = class extends Error {
    name = "PraxisError";
    status;
    type;
    title;
    detail;
    instance;
    requestId;
    errors;
    /** The whole problem document, including extension members (e.g. `settings`, `line`). */
    problem;
    constructor(status, body2, requestId) {
      const p = body2 && typeof body2 === "object" ? body2 : {};
      const str2 = (v) => typeof v === "string" ? v : void 0;
      const detail = str2(p.detail) ?? (typeof body2 === "string" && body2 ? body2.slice(0, 500) : `HTTP ${status}`);
      super(detail);
      this.status = typeof p.status === "number" ? p.status : status;
      this.type = str2(p.type) ?? "about:blank";
      this.title = str2(p.title) ?? `HTTP ${status}`;
      this.detail = detail;
      this.instance = str2(p.instance);
      this.requestId = str2(p.requestId) ?? requestId ?? void 0;
      this.errors = Array.isArray(p.errors) ? p.errors : [];
      this.problem = p;
    }
    /** The problem type's short name: `not-found`, `validation-failed`, `llm-not-configured`… */
    get code() {
      return this.type.slice(this.type.lastIndexOf("/") + 1);
    }
    /** One line for logs and terminals: status, code, detail, the fields at fault and the request id. */
    toString() {
      const fields = this.errors.length ? ` [${this.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}]` : "";
      return `${this.status} ${this.code}: ${this.detail}${fields}${this.requestId ? ` (request ${this.requestId})` : ""}`;
    }
  };
  var PraxisConnectionError = class extends Error {
    constructor(url, cause) {
      super(
        `Could not reach ${url}: ${cause instanceof Error ? cause.cause instanceof Error ? cause.cause.message : cause.message : String(cause)}`,
        { cause }
      );
      this.url = url;
    }
    url;
    name = "PraxisConnectionError";
  };

  // node_modules/eventsource-parser/dist/index.js
  var ParseError = class extends Error {
    constructor(message, options) {
      super(message), this.name = "ParseError", this.type = options.type, this.field = options.field, this.value = options.value, this.line = options.line;
    }
  };
  var LF = 10;
  var CR = 13;
  var SPACE = 32;
  function noop(_arg) {
  }
  function createParser(config) {
    if (typeof config == "function")
      throw new TypeError(
        "`config` must be an object, got a function instead. Did you mean `createParser({onEvent: fn})`?"
      );
    const { onEvent = noop, onError = noop, onRetry = noop, onComment, maxBufferSize } = config, pendingFragments = [];
    let pendingFragmentsLength = 0, isFirstChunk = true, id, data = "", dataLines = 0, eventType, terminated = false;
    function feed(chunk) {
      if (terminated)
        throw new Error(
          "Cannot feed parser: it was terminated after exceeding the configured max buffer size. Call `reset()` to resume parsing."
        );
      if (isFirstChunk && (isFirstChunk = false, chunk.charCodeAt(0) === 239 && chunk.charCodeAt(1) === 187 && chunk.charCodeAt(2) === 191 && (chunk = chunk.slice(3))), pendingFragments.length === 0) {
        const trailing2 = processLines(chunk);
        trailing2 !== "" && (pendingFragments.push(trailing2), pendingFragmentsLength = trailing2.length), checkBufferSize();
        return;
      }
      if (chunk.indexOf(`
`) === -1 && chunk.indexOf("\r") === -1) {
        pendingFragments.push(chunk), pendingFragmentsLength += chunk.length, checkBufferSize();
        return;
      }
      pendingFragments.push(chunk);
      const input = pendingFragments.join("");
      pendingFragments.length = 0, pendingFragmentsLength = 0;
      const trailing = processLines(input);
      trailing !== "" && (pendingFragments.push(trailing), pendingFragmentsLength = trailing.length), checkBufferSize();
    }
    function checkBufferSize() {
      maxBufferSize !== void 0 && (pendingFragmentsLength + data.length <= maxBufferSize || (terminated = true, pendingFragments.length = 0, pendingFragmentsLength = 0, id = void 0, data = "", dataLines = 0, eventType = void 0, onError(
        new ParseError(`Buffered data exceeded max buffer size of ${maxBufferSize} characters`, {
          type: "max-buffer-size-exceeded"
        })
      )));
    }
    function processLines(chunk) {
      let searchIndex = 0;
      if (chunk.indexOf("\r") === -1) {
        let lfIndex = chunk.indexOf(`
`, searchIndex);
        for (; lfIndex !== -1; ) {
          if (searchIndex === lfIndex) {
            dataLines > 0 && onEvent({ id, event: eventType, data }), id = void 0, data = "", dataLines = 0, eventType = void 0, searchIndex = lfIndex + 1, lfIndex = chunk.indexOf(`
`, searchIndex);
            continue;
          }
          const firstCharCode = chunk.charCodeAt(searchIndex);
          if (isDataPrefix(chunk, searchIndex, firstCharCode)) {
            const valueStart = chunk.charCodeAt(searchIndex + 5) === SPACE ? searchIndex + 6 : searchIndex + 5, value = chunk.slice(valueStart, lfIndex);
            if (dataLines === 0 && chunk.charCodeAt(lfIndex + 1) === LF) {
              onEvent({ id, event: eventType, data: value }), id = void 0, data = "", eventType = void 0, searchIndex = lfIndex + 2, lfIndex = chunk.indexOf(`
`, searchIndex);
              continue;
            }
            data = dataLines === 0 ? value : `${data}
${value}`, dataLines++;
          } else isEventPrefix(chunk, searchIndex, firstCharCode) ? eventType = chunk.slice(
            chunk.charCodeAt(searchIndex + 6) === SPACE ? searchIndex + 7 : searchIndex + 6,
            lfIndex
          ) || void 0 : parseLine(chunk, searchIndex, lfIndex);
          searchIndex = lfIndex + 1, lfIndex = chunk.indexOf(`
`, searchIndex);
        }
        return chunk.slice(searchIndex);
      }
      for (; searchIndex < chunk.length; ) {
        const crIndex = chunk.indexOf("\r", searchIndex), lfIndex = chunk.indexOf(`
`, searchIndex);
        let lineEnd = -1;
        if (crIndex !== -1 && lfIndex !== -1 ? lineEnd = crIndex < lfIndex ? crIndex : lfIndex : crIndex !== -1 ? crIndex === chunk.length - 1 ? lineEnd = -1 : lineEnd = crIndex : lfIndex !== -1 && (lineEnd = lfIndex), lineEnd === -1)
          break;
        parseLine(chunk, searchIndex, lineEnd), searchIndex = lineEnd + 1, chunk.charCodeAt(searchIndex - 1) === CR && chunk.charCodeAt(searchIndex) === LF && searchIndex++;
      }
      return chunk.slice(searchIndex);
    }
    function parseLine(chunk, start2, end) {
      if (start2 === end) {
        dispatchEvent();
        return;
      }
      const firstCharCode = chunk.charCodeAt(start2);
      if (isDataPrefix(chunk, start2, firstCharCode)) {
        const valueStart = chunk.charCodeAt(start2 + 5) === SPACE ? start2 + 6 : start2 + 5, value2 = chunk.slice(valueStart, end);
        data = dataLines === 0 ? value2 : `${data}
${value2}`, dataLines++;
        return;
      }
      if (isEventPrefix(chunk, start2, firstCharCode)) {
        eventType = chunk.slice(chunk.charCodeAt(start2 + 6) === SPACE ? start2 + 7 : start2 + 6, end) || void 0;
        return;
      }
      if (firstCharCode === 105 && chunk.charCodeAt(start2 + 1) === 100 && chunk.charCodeAt(start2 + 2) === 58) {
        const value2 = chunk.slice(chunk.charCodeAt(start2 + 3) === SPACE ? start2 + 4 : start2 + 3, end);
        value2.includes("\0") || (id = value2);
        return;
      }
      if (firstCharCode === 58) {
        if (onComment) {
          const line22 = chunk.slice(start2, end);
          onComment(line22.slice(chunk.charCodeAt(start2 + 1) === SPACE ? 2 : 1));
        }
        return;
      }
      const line2 = chunk.slice(start2, end), fieldSeparatorIndex = line2.indexOf(":");
      if (fieldSeparatorIndex === -1) {
        processField(line2, "", line2);
        return;
      }
      const field = line2.slice(0, fieldSeparatorIndex), offset = line2.charCodeAt(fieldSeparatorIndex + 1) === SPACE ? 2 : 1, value = line2.slice(fieldSeparatorIndex + offset);
      processField(field, value, line2);
    }
    function processField(field, value, line2) {
      switch (field) {
        case "event":
          eventType = value || void 0;
          break;
        case "data":
          data = dataLines === 0 ? value : `${data}
${value}`, dataLines++;
          break;
        case "id":
          value.includes("\0") || (id = value);
          break;
        case "retry":
          /^\d+$/.test(value) ? onRetry(parseInt(value, 10)) : onError(
            new ParseError(`Invalid \`retry\` value: "${value}"`, {
              type: "invalid-retry",
              value,
              line: line2
            })
          );
          break;
        default:
          onError(
            new ParseError(
              `Unknown field "${field.length > 20 ? `${field.slice(0, 20)}…` : field}"`,
              { type: "unknown-field", field, value, line: line2 }
            )
          );
          break;
      }
    }
    function dispatchEvent() {
      dataLines > 0 && onEvent({
        id,
        event: eventType,
        data
      }), id = void 0, data = "", dataLines = 0, eventType = void 0;
    }
    function reset(options = {}) {
      if (options.consume && pendingFragments.length > 0) {
        const incompleteLine = pendingFragments.join("");
        parseLine(incompleteLine, 0, incompleteLine.length);
      }
      isFirstChunk = true, id = void 0, data = "", dataLines = 0, eventType = void 0, pendingFragments.length = 0, pendingFragmentsLength = 0, terminated = false;
    }
    return { feed, reset };
  }
  function isDataPrefix(chunk, i, firstCharCode) {
    return firstCharCode === 100 && chunk.charCodeAt(i + 1) === 97 && chunk.charCodeAt(i + 2) === 116 && chunk.charCodeAt(i + 3) === 97 && chunk.charCodeAt(i + 4) === 58;
  }
  function isEventPrefix(chunk, i, firstCharCode) {
    return firstCharCode === 101 && chunk.charCodeAt(i + 1) === 118 && chunk.charCodeAt(i + 2) === 101 && chunk.charCodeAt(i + 3) === 110 && chunk.charCodeAt(i + 4) === 116 && chunk.charCodeAt(i + 5) === 58;
  }

  // node_modules/eventsource-parser/dist/stream.js
  var EventSourceParserStream = class extends TransformStream {
    constructor({ onError, onRetry, onComment, maxBufferSize } = {}) {
      let parser;
      super({
        start(controller) {
          parser = createParser({
            onEvent: (event) => {
              controller.enqueue(event);
            },
            onError(error) {
              typeof onError == "function" && onError(error), (onError === "terminate" || error.type === "max-buffer-size-exceeded") && controller.error(error);
            },
            onRetry,
            onComment,
            maxBufferSize
          });
        },
        transform(chunk) {
          parser.feed(chunk);
        }
      });
    }
  };

  // client/src/events.ts
  async function* runEvents(open) {
    let lastId = 0;
    for (; ; ) {
      const res = await open(lastId);
      if (!res.body) return;
      const reader = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
      let received = 0;
      try {
        for (; ; ) {
          const { done, value } = await reader.read();
          if (done) break;
          received++;
          const id = Number(value.id ?? lastId + 1);
          lastId = id;
          const event = {
            id,
            type: value.event ?? "message",
            data: value.data ? JSON.parse(value.data) : {}
          };
          yield event;
          if (event.type === "end") return;
        }
      } finally {
        await reader.cancel().catch(() => void 0);
      }
      if (!received) return;
    }
  }

  // client/src/unwrap.ts
  async function unwrap(call2) {
    const { data, error, response } = await call2;
    if (!response.ok) throw new PraxisError(response.status, error, response.headers.get("x-request-id"));
    return data;
  }

  // client/src/generated/operations.ts
  var Operations = class {
    constructor(api2) {
      this.api = api2;
    }
    api;
    /** Where to start: `GET /` */
    getServiceIndex(init) {
      return unwrap(this.api.GET("/", init));
    }
    /** Liveness: `GET /healthz` */
    getHealth(init) {
      return unwrap(this.api.GET("/healthz", init));
    }
    /** Create a tenant: `POST /v1/tenants` */
    createTenant(init) {
      return unwrap(this.api.POST("/v1/tenants", init));
    }
    /** List tenants (operator): `GET /v1/tenants` */
    listTenants(init) {
      return unwrap(this.api.GET("/v1/tenants", init));
    }
    /** Rotate a tenant's admin key (operator): `POST /v1/tenants/{tenantId}/keys/rotate` */
    rotateTenantAdminKey(init) {
      return unwrap(this.api.POST("/v1/tenants/{tenantId}/keys/rotate", init));
    }
    /** Create an API key (admin): `POST /v1/keys` */
    createApiKey(init) {
      return unwrap(this.api.POST("/v1/keys", init));
    }
    /** List the tenant's API keys (admin); secrets are never returned: `GET /v1/keys` */
    listApiKeys(init) {
      return unwrap(this.api.GET("/v1/keys", init));
    }
    /** The key making this request: its tenant, scope, agents and libraries (any scope): `GET /v1/keys/current` */
    getCurrentApiKey(init) {
      return unwrap(this.api.GET("/v1/keys/current", init));
    }
    /** Revoke an API key: `DELETE /v1/keys/{id}` */
    revokeApiKey(init) {
      return unwrap(this.api.DELETE("/v1/keys/{id}", init));
    }
    /** Rotate an API key (admin): `POST /v1/keys/{id}/rotate` */
    rotateApiKey(init) {
      return unwrap(this.api.POST("/v1/keys/{id}/rotate", init));
    }
    /** Create or update an agent: `PUT /v1/agents/{agentId}` */
    upsertAgent(init) {
      return unwrap(this.api.PUT("/v1/agents/{agentId}", init));
    }
    /** Get an agent: `GET /v1/agents/{agentId}` */
    getAgent(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}", init));
    }
    /** Delete an agent: `DELETE /v1/agents/{agentId}` */
    deleteAgent(init) {
      return unwrap(this.api.DELETE("/v1/agents/{agentId}", init));
    }
    /** List agents: `GET /v1/agents` */
    listAgents(init) {
      return unwrap(this.api.GET("/v1/agents", init));
    }
    /** Get an agent's settings: `GET /v1/agents/{agentId}/config` */
    getAgentConfig(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/config", init));
    }
    /** Change an agent's settings: `PATCH /v1/agents/{agentId}/config` */
    updateAgentConfig(init) {
      return unwrap(this.api.PATCH("/v1/agents/{agentId}/config", init));
    }
    /** Add an experience: `POST /v1/agents/{agentId}/experiences` */
    addExperience(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/experiences", init));
    }
    /** List experiences: `GET /v1/agents/{agentId}/experiences` */
    listExperiences(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/experiences", init));
    }
    /** Get an experience: `GET /v1/agents/{agentId}/experiences/{id}` */
    getExperience(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/experiences/{id}", init));
    }
    /** Change an experience: `PATCH /v1/agents/{agentId}/experiences/{id}` */
    updateExperience(init) {
      return unwrap(this.api.PATCH("/v1/agents/{agentId}/experiences/{id}", init));
    }
    /** Delete an experience: `DELETE /v1/agents/{agentId}/experiences/{id}` */
    deleteExperience(init) {
      return unwrap(this.api.DELETE("/v1/agents/{agentId}/experiences/{id}", init));
    }
    /** Change several experiences at once: `POST /v1/agents/{agentId}/library/batch` */
    applyLibraryBatch(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/library/batch", init));
    }
    /** List library versions: `GET /v1/agents/{agentId}/library/versions` */
    listLibraryVersions(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/library/versions", init));
    }
    /** Get a library version: `GET /v1/agents/{agentId}/library/versions/{n}` */
    getLibraryVersion(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/library/versions/{n}", init));
    }
    /** Diff a library version: `GET /v1/agents/{agentId}/library/versions/{n}/diff` */
    getLibraryVersionDiff(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/library/versions/{n}/diff", init));
    }
    /** Roll the library back: `POST /v1/agents/{agentId}/library/rollback` */
    rollbackLibrary(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/library/rollback", init));
    }
    /** Export the library: `GET /v1/agents/{agentId}/library/export` */
    exportLibrary(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/library/export", init));
    }
    /** Import a library: `POST /v1/agents/{agentId}/library/import` */
    importLibrary(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/library/import", init));
    }
    /** Add a case: `POST /v1/agents/{agentId}/cases` */
    addCase(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/cases", init));
    }
    /** List cases: `GET /v1/agents/{agentId}/cases` */
    listCases(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/cases", init));
    }
    /** Get a case: `GET /v1/agents/{agentId}/cases/{id}` */
    getCase(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/cases/{id}", init));
    }
    /** Change a case: `PATCH /v1/agents/{agentId}/cases/{id}` */
    updateCase(init) {
      return unwrap(this.api.PATCH("/v1/agents/{agentId}/cases/{id}", init));
    }
    /** Delete a case: `DELETE /v1/agents/{agentId}/cases/{id}` */
    deleteCase(init) {
      return unwrap(this.api.DELETE("/v1/agents/{agentId}/cases/{id}", init));
    }
    /** List held entries: `GET /v1/agents/{agentId}/quarantine` */
    listQuarantine(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/quarantine", init));
    }
    /** Release a held entry: `POST /v1/agents/{agentId}/quarantine/{id}/release` */
    releaseQuarantined(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/quarantine/{id}/release", init));
    }
    /** Delete a held entry: `DELETE /v1/agents/{agentId}/quarantine/{id}` */
    deleteQuarantined(init) {
      return unwrap(this.api.DELETE("/v1/agents/{agentId}/quarantine/{id}", init));
    }
    /** Get a held entry: `GET /v1/agents/{agentId}/quarantine/{id}` */
    getQuarantined(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/quarantine/{id}", init));
    }
    /** Retrieve lessons and cases: `POST /v1/agents/{agentId}/retrieve` */
    retrieve(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/retrieve", init));
    }
    /** Get the prompt block: `GET /v1/agents/{agentId}/prompt` */
    getPrompt(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/prompt", init));
    }
    /** Report an outcome: `POST /v1/agents/{agentId}/rewards` */
    reportReward(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/rewards", init));
    }
    /** Q-value analytics: `GET /v1/agents/{agentId}/analytics` */
    getAnalytics(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/analytics", init));
    }
    /** LLM calls, tokens and estimated cost from the usage ledger, grouped: `GET /v1/usage` */
    getUsage(init) {
      return unwrap(this.api.GET("/v1/usage", init));
    }
    /** Start an episode: `POST /v1/agents/{agentId}/episodes` */
    startEpisode(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/episodes", init));
    }
    /** List episodes: `GET /v1/agents/{agentId}/episodes` */
    listEpisodes(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/episodes", init));
    }
    /** Log an attempt: `POST /v1/agents/{agentId}/episodes/{id}/attempts` */
    logAttempt(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/episodes/{id}/attempts", init));
    }
    /** End an episode: `POST /v1/agents/{agentId}/episodes/{id}/end` */
    endEpisode(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/episodes/{id}/end", init));
    }
    /** Get an episode: `GET /v1/agents/{agentId}/episodes/{id}` */
    getEpisode(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/episodes/{id}", init));
    }
    /** List an episode's retrievals: `GET /v1/agents/{agentId}/episodes/{id}/retrievals` */
    listEpisodeRetrievals(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/episodes/{id}/retrievals", init));
    }
    /** List background jobs: `GET /v1/agents/{agentId}/jobs` */
    listJobs(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/jobs", init));
    }
    /** Retry a background job: `POST /v1/agents/{agentId}/jobs/{id}/retry` */
    retryJob(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/jobs/{id}/retry", init));
    }
    /** Create a dataset: `POST /v1/datasets` */
    createDataset(init) {
      return unwrap(this.api.POST("/v1/datasets", init));
    }
    /** List datasets: `GET /v1/datasets` */
    listDatasets(init) {
      return unwrap(this.api.GET("/v1/datasets", init));
    }
    /** Add tasks: JSON `{ tasks }` (≤ 500) or application/x-ndjson, one task a line (≤ 5000 lines, ≤ 16 MiB): `POST /v1/datasets/{datasetId}/tasks` */
    addDatasetTasks(init) {
      return unwrap(this.api.POST("/v1/datasets/{datasetId}/tasks", init));
    }
    /** List a dataset's tasks: `GET /v1/datasets/{datasetId}/tasks` */
    listDatasetTasks(init) {
      return unwrap(this.api.GET("/v1/datasets/{datasetId}/tasks", init));
    }
    /** Get a dataset: `GET /v1/datasets/{datasetId}` */
    getDataset(init) {
      return unwrap(this.api.GET("/v1/datasets/{datasetId}", init));
    }
    /** Delete a dataset: `DELETE /v1/datasets/{datasetId}` */
    deleteDataset(init) {
      return unwrap(this.api.DELETE("/v1/datasets/{datasetId}", init));
    }
    /** Create a dataset from episodes: `POST /v1/agents/{agentId}/datasets/from-episodes` */
    createDatasetFromEpisodes(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/datasets/from-episodes", init));
    }
    /** Create or rotate the tenant's webhook secret (unrestricted admin); the secret is shown once: `POST /v1/webhook-secret` */
    rotateWebhookSecret(init) {
      return unwrap(this.api.POST("/v1/webhook-secret", init));
    }
    /** Remove the webhook secret: `DELETE /v1/webhook-secret` */
    deleteWebhookSecret(init) {
      return unwrap(this.api.DELETE("/v1/webhook-secret", init));
    }
    /** Ingest a finished agent session (signed webhook); idempotent per sessionId: `POST /v1/hooks/session-end` */
    ingestSessionEnd(init) {
      return unwrap(this.api.POST("/v1/hooks/session-end", init));
    }
    /** Start a practice run: `POST /v1/agents/{agentId}/practice-runs` */
    startPracticeRun(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/practice-runs", init));
    }
    /** List practice runs: `GET /v1/agents/{agentId}/practice-runs` */
    listPracticeRuns(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/practice-runs", init));
    }
    /** Get a practice run: `GET /v1/agents/{agentId}/practice-runs/{runId}` */
    getPracticeRun(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/practice-runs/{runId}", init));
    }
    /** Stream a run's events: `GET /v1/agents/{agentId}/practice-runs/{runId}/events` */
    streamPracticeRunEvents(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/practice-runs/{runId}/events", init));
    }
    /** List a run's steps: `GET /v1/agents/{agentId}/practice-runs/{runId}/steps` */
    listPracticeRunSteps(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/practice-runs/{runId}/steps", init));
    }
    /** Get a run's step: `GET /v1/agents/{agentId}/practice-runs/{runId}/steps/{n}` */
    getPracticeRunStep(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/practice-runs/{runId}/steps/{n}", init));
    }
    /** List a run's rollouts: `GET /v1/agents/{agentId}/practice-runs/{runId}/rollouts` */
    listPracticeRunRollouts(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/practice-runs/{runId}/rollouts", init));
    }
    /** Get a run's library: `GET /v1/agents/{agentId}/practice-runs/{runId}/library` */
    getPracticeRunLibrary(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/practice-runs/{runId}/library", init));
    }
    /** Get a run's learning curve: `GET /v1/agents/{agentId}/practice-runs/{runId}/curve` */
    getPracticeRunCurve(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/practice-runs/{runId}/curve", init));
    }
    /** Cancel a practice run: `POST /v1/agents/{agentId}/practice-runs/{runId}/cancel` */
    cancelPracticeRun(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/practice-runs/{runId}/cancel", init));
    }
    /** Submit a webhook rollout's result: `POST /v1/practice/rollouts/{rolloutId}/result` */
    submitRolloutResult(init) {
      return unwrap(this.api.POST("/v1/practice/rollouts/{rolloutId}/result", init));
    }
    /** Start an evaluation: `POST /v1/agents/{agentId}/evaluations` */
    startEvaluation(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/evaluations", init));
    }
    /** List evaluations: `GET /v1/agents/{agentId}/evaluations` */
    listEvaluations(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/evaluations", init));
    }
    /** Compare two libraries: `POST /v1/agents/{agentId}/evaluations/compare` */
    compareLibraries(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/evaluations/compare", init));
    }
    /** Get a comparison: `GET /v1/agents/{agentId}/evaluations/compare/{comparisonId}` */
    getComparison(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/evaluations/compare/{comparisonId}", init));
    }
    /** Get an evaluation: `GET /v1/agents/{agentId}/evaluations/{evaluationId}` */
    getEvaluation(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/evaluations/{evaluationId}", init));
    }
    /** Create or replace a practice schedule: a run on a dataset every 6h, 1d, 7d or on a cron expression (UTC): `PUT /v1/agents/{agentId}/practice-schedules/{name}` */
    putPracticeSchedule(init) {
      return unwrap(this.api.PUT("/v1/agents/{agentId}/practice-schedules/{name}", init));
    }
    /** Get a practice schedule: `GET /v1/agents/{agentId}/practice-schedules/{name}` */
    getPracticeSchedule(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/practice-schedules/{name}", init));
    }
    /** Delete a practice schedule: `DELETE /v1/agents/{agentId}/practice-schedules/{name}` */
    deletePracticeSchedule(init) {
      return unwrap(this.api.DELETE("/v1/agents/{agentId}/practice-schedules/{name}", init));
    }
    /** List practice schedules: `GET /v1/agents/{agentId}/practice-schedules` */
    listPracticeSchedules(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/practice-schedules", init));
    }
    /** What retrieval has learned from rewards: the re-ranker's weights and the size of usage memory: `GET /v1/agents/{agentId}/retriever` */
    getRetriever(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/retriever", init));
    }
    /** Forget what retrieval learned from rewards (re-ranker weights, learned phrases, usage centroids): `DELETE /v1/agents/{agentId}/retriever` */
    resetRetriever(init) {
      return unwrap(this.api.DELETE("/v1/agents/{agentId}/retriever", init));
    }
    /** Subscribe a URL to events (unrestricted admin): `POST /v1/events/endpoints` */
    createEventEndpoint(init) {
      return unwrap(this.api.POST("/v1/events/endpoints", init));
    }
    /** List the tenant's event endpoints (unrestricted admin): `GET /v1/events/endpoints` */
    listEventEndpoints(init) {
      return unwrap(this.api.GET("/v1/events/endpoints", init));
    }
    /** Remove an event endpoint (unrestricted admin): `DELETE /v1/events/endpoints/{endpointId}` */
    deleteEventEndpoint(init) {
      return unwrap(this.api.DELETE("/v1/events/endpoints/{endpointId}", init));
    }
    /** The delivery log (unrestricted admin): `GET /v1/events/deliveries` */
    listEventDeliveries(init) {
      return unwrap(this.api.GET("/v1/events/deliveries", init));
    }
    /** Create a shared library: `POST /v1/libraries` */
    createSharedLibrary(init) {
      return unwrap(this.api.POST("/v1/libraries", init));
    }
    /** List shared libraries: `GET /v1/libraries` */
    listSharedLibraries(init) {
      return unwrap(this.api.GET("/v1/libraries", init));
    }
    /** Get a shared library: `GET /v1/libraries/{libraryId}` */
    getSharedLibrary(init) {
      return unwrap(this.api.GET("/v1/libraries/{libraryId}", init));
    }
    /** Rename or describe a shared library: `PATCH /v1/libraries/{libraryId}` */
    updateSharedLibrary(init) {
      return unwrap(this.api.PATCH("/v1/libraries/{libraryId}", init));
    }
    /** Delete a shared library: `DELETE /v1/libraries/{libraryId}` */
    deleteSharedLibrary(init) {
      return unwrap(this.api.DELETE("/v1/libraries/{libraryId}", init));
    }
    /** Subscribers and how the lessons fare with each: `GET /v1/libraries/{libraryId}/subscribers` */
    listLibrarySubscribers(init) {
      return unwrap(this.api.GET("/v1/libraries/{libraryId}/subscribers", init));
    }
    /** Add a lesson to a shared library: `POST /v1/libraries/{libraryId}/experiences` */
    addSharedExperience(init) {
      return unwrap(this.api.POST("/v1/libraries/{libraryId}/experiences", init));
    }
    /** List a shared library's lessons: `GET /v1/libraries/{libraryId}/experiences` */
    listSharedExperiences(init) {
      return unwrap(this.api.GET("/v1/libraries/{libraryId}/experiences", init));
    }
    /** Get a shared library's lesson: `GET /v1/libraries/{libraryId}/experiences/{id}` */
    getSharedExperience(init) {
      return unwrap(this.api.GET("/v1/libraries/{libraryId}/experiences/{id}", init));
    }
    /** Change a shared library's lesson: `PATCH /v1/libraries/{libraryId}/experiences/{id}` */
    updateSharedExperience(init) {
      return unwrap(this.api.PATCH("/v1/libraries/{libraryId}/experiences/{id}", init));
    }
    /** Delete a shared library's lesson: `DELETE /v1/libraries/{libraryId}/experiences/{id}` */
    deleteSharedExperience(init) {
      return unwrap(this.api.DELETE("/v1/libraries/{libraryId}/experiences/{id}", init));
    }
    /** Subscribe an agent to a shared library: `PUT /v1/agents/{agentId}/subscriptions/{libraryId}` */
    subscribeAgent(init) {
      return unwrap(this.api.PUT("/v1/agents/{agentId}/subscriptions/{libraryId}", init));
    }
    /** End a subscription: `DELETE /v1/agents/{agentId}/subscriptions/{libraryId}` */
    unsubscribeAgent(init) {
      return unwrap(this.api.DELETE("/v1/agents/{agentId}/subscriptions/{libraryId}", init));
    }
    /** List an agent's subscriptions: `GET /v1/agents/{agentId}/subscriptions` */
    listAgentSubscriptions(init) {
      return unwrap(this.api.GET("/v1/agents/{agentId}/subscriptions", init));
    }
    /** Share an agent's lesson into a shared library: `POST /v1/agents/{agentId}/experiences/{id}/share` */
    shareExperience(init) {
      return unwrap(this.api.POST("/v1/agents/{agentId}/experiences/{id}/share", init));
    }
    /** List a shared library's versions: `GET /v1/libraries/{libraryId}/versions` */
    listSharedLibraryVersions(init) {
      return unwrap(this.api.GET("/v1/libraries/{libraryId}/versions", init));
    }
    /** Get a shared library version: `GET /v1/libraries/{libraryId}/versions/{n}` */
    getSharedLibraryVersion(init) {
      return unwrap(this.api.GET("/v1/libraries/{libraryId}/versions/{n}", init));
    }
    /** Diff a shared library version: `GET /v1/libraries/{libraryId}/versions/{n}/diff` */
    getSharedLibraryVersionDiff(init) {
      return unwrap(this.api.GET("/v1/libraries/{libraryId}/versions/{n}/diff", init));
    }
    /** Roll a shared library back: `POST /v1/libraries/{libraryId}/rollback` */
    rollbackSharedLibrary(init) {
      return unwrap(this.api.POST("/v1/libraries/{libraryId}/rollback", init));
    }
    /** Export a shared library: `GET /v1/libraries/{libraryId}/export` */
    exportSharedLibrary(init) {
      return unwrap(this.api.GET("/v1/libraries/{libraryId}/export", init));
    }
    /** Import into a shared library: `POST /v1/libraries/{libraryId}/import` */
    importSharedLibrary(init) {
      return unwrap(this.api.POST("/v1/libraries/{libraryId}/import", init));
    }
    /** List a shared library's held entries: `GET /v1/libraries/{libraryId}/quarantine` */
    listSharedLibraryQuarantine(init) {
      return unwrap(this.api.GET("/v1/libraries/{libraryId}/quarantine", init));
    }
    /** Release a shared library's held entry: `POST /v1/libraries/{libraryId}/quarantine/{id}/release` */
    releaseSharedQuarantined(init) {
      return unwrap(this.api.POST("/v1/libraries/{libraryId}/quarantine/{id}/release", init));
    }
    /** Delete a shared library's held entry: `DELETE /v1/libraries/{libraryId}/quarantine/{id}` */
    deleteSharedQuarantined(init) {
      return unwrap(this.api.DELETE("/v1/libraries/{libraryId}/quarantine/{id}", init));
    }
  };

  // client/src/generated/idempotency.ts
  var IDEMPOTENT_WRITES = /* @__PURE__ */ new Set([
    "POST /v1/agents/{agentId}/experiences",
    "POST /v1/agents/{agentId}/library/batch",
    "POST /v1/agents/{agentId}/library/rollback",
    "POST /v1/agents/{agentId}/library/import",
    "POST /v1/agents/{agentId}/cases",
    "POST /v1/agents/{agentId}/rewards",
    "POST /v1/agents/{agentId}/episodes",
    "POST /v1/agents/{agentId}/practice-runs",
    "POST /v1/agents/{agentId}/evaluations",
    "POST /v1/agents/{agentId}/evaluations/compare",
    "POST /v1/libraries/{libraryId}/experiences",
    "POST /v1/agents/{agentId}/experiences/{id}/share",
    "POST /v1/libraries/{libraryId}/rollback",
    "POST /v1/libraries/{libraryId}/import"
  ]);

  // client/src/transport.ts
  var SAFE_METHODS = /* @__PURE__ */ new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);
  var RETRY_STATUSES = /* @__PURE__ */ new Set([429, 502, 503, 504]);
  var MAX_DELAY_MS = 8e3;
  var MAX_RETRY_AFTER_MS = 3e4;
  var sleep = (ms, signal) => new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });
  function retryAfterMs(res) {
    const h2 = res.headers.get("retry-after");
    if (!h2) return void 0;
    const secs = Number(h2);
    const ms = Number.isFinite(secs) ? secs * 1e3 : Date.parse(h2) - Date.now();
    return Number.isFinite(ms) ? Math.max(ms, 0) : void 0;
  }
  async function isPermanent(res) {
    if (res.status !== 503 || !res.headers.get("content-type")?.includes("json")) return false;
    try {
      const body2 = await res.clone().json();
      return typeof body2.type === "string" && body2.type.endsWith("-not-configured");
    } catch {
      return false;
    }
  }
  var idempotencyMiddleware = {
    onRequest({ request, schemaPath }) {
      if (request.headers.has("idempotency-key") || !IDEMPOTENT_WRITES.has(`${request.method} ${schemaPath}`)) return void 0;
      const headers = new Headers(request.headers);
      headers.set("idempotency-key", crypto.randomUUID());
      return new Request(request, { headers });
    }
  };
  function retryingFetch(base, opts = {}) {
    const retries = opts.retries ?? 2;
    const baseDelay = opts.baseDelayMs ?? 250;
    return async (request) => {
      const repeatable = SAFE_METHODS.has(request.method) || request.headers.has("idempotency-key");
      const attempts = repeatable ? retries + 1 : 1;
      for (let attempt = 1; ; attempt++) {
        const last = attempt >= attempts;
        let res;
        try {
          res = await base(last ? request : request.clone());
        } catch (err) {
          if (request.signal?.aborted) throw err;
          if (last) throw new PraxisConnectionError(new URL(request.url).origin, err);
          await sleep(Math.min(baseDelay * 2 ** (attempt - 1), MAX_DELAY_MS), request.signal);
          continue;
        }
        if (last || !RETRY_STATUSES.has(res.status) || await isPermanent(res)) return res;
        const advised = retryAfterMs(res);
        if (advised !== void 0 && advised > MAX_RETRY_AFTER_MS) return res;
        const wait = advised ?? Math.min(baseDelay * 2 ** (attempt - 1), MAX_DELAY_MS);
        await res.body?.cancel();
        await sleep(wait, request.signal);
      }
    };
  }

  // client/src/session.ts
  var LIBRARY_VERSION_HEADER = "x-praxis-library-version";
  var MIN_VERSION_HEADER = "x-praxis-min-version";
  var AGENT_PATH = "/v1/agents/{agentId}";
  var EDGE_READS = /* @__PURE__ */ new Set(["POST /v1/agents/{agentId}/retrieve", "GET /v1/agents/{agentId}/prompt"]);
  var LibraryVersions = class {
    latest = /* @__PURE__ */ new Map();
    get(agentId2) {
      return this.latest.get(agentId2);
    }
    note(agentId2, version) {
      if (version <= (this.latest.get(agentId2) ?? -1)) return;
      this.latest.delete(agentId2);
      this.latest.set(agentId2, version);
    }
    forget(agentId2) {
      this.latest.delete(agentId2);
    }
    /** Every agent's version, the one written longest ago first. */
    entries() {
      return [...this.latest];
    }
  };
  function agentOf(schemaPath, url) {
    if (schemaPath !== AGENT_PATH && !schemaPath.startsWith(`${AGENT_PATH}/`)) return null;
    const segment = new URL(url).pathname.split("/")[3];
    return segment ? decodeURIComponent(segment) : null;
  }
  function readYourWritesMiddleware(versions) {
    return {
      onRequest({ request, schemaPath }) {
        const agentId2 = agentOf(schemaPath, request.url);
        if (!agentId2 || request.headers.has(MIN_VERSION_HEADER) || !EDGE_READS.has(`${request.method} ${schemaPath}`)) return void 0;
        const version = versions.get(agentId2);
        if (version === void 0) return void 0;
        const headers = new Headers(request.headers);
        headers.set(MIN_VERSION_HEADER, String(version));
        return new Request(request, { headers });
      },
      async onResponse({ request, response, schemaPath }) {
        const agentId2 = agentOf(schemaPath, request.url);
        if (!agentId2) return void 0;
        if (response.ok && request.method === "DELETE" && schemaPath === AGENT_PATH) versions.forget(agentId2);
        const made = Number(response.headers.get(LIBRARY_VERSION_HEADER) ?? Number.NaN);
        if (response.ok && Number.isInteger(made)) versions.note(agentId2, made);
        const asked = request.headers.get(MIN_VERSION_HEADER);
        if (response.status === 409 && asked !== null && await unreached(response) === Number(asked)) versions.forget(agentId2);
        return void 0;
      }
    };
  }
  async function unreached(response) {
    try {
      const body2 = await response.clone().json();
      const ok = typeof body2.type === "string" && body2.type.endsWith("/version-not-reached") && typeof body2.minVersion === "number";
      return ok ? body2.minVersion : void 0;
    } catch {
      return void 0;
    }
  }

  // client/src/index.ts
  var Praxis = class {
    api;
    /** Every operation as a method named by its operationId: `praxis.ops.retrieve({ params, body })`. */
    ops;
    /** The latest library version this client wrote for each agent (what its reads ask for). */
    versions = new LibraryVersions();
    constructor(options) {
      const base = options.fetch ?? ((request) => fetch(request));
      this.api = createClient({
        baseUrl: options.baseUrl.replace(/\/+$/, ""),
        fetch: retryingFetch(base, options.retry),
        headers: { authorization: `Bearer ${options.apiKey}` }
      });
      this.api.use(idempotencyMiddleware);
      if (options.readYourWrites !== false) this.api.use(readYourWritesMiddleware(this.versions));
      this.ops = new Operations(this.api);
    }
    agent(agentId2) {
      return new Agent(this, agentId2);
    }
  };
  var Agent = class {
    constructor(praxis2, id) {
      this.praxis = praxis2;
      this.id = id;
    }
    praxis;
    id;
    get params() {
      return { path: { agentId: this.id } };
    }
    /** Creates the agent, or updates its display name (PUT: safe to repeat). */
    ensure(displayName) {
      return unwrap(this.praxis.api.PUT("/v1/agents/{agentId}", { params: this.params, body: displayName ? { displayName } : {} }));
    }
    /** The block to inject into the agent's prompt: `[G#]. …` lessons, then relevant past cases. */
    prompt({ filter, ...query }) {
      const params = { ...this.params, query: { ...query, ...filter ? { filter: JSON.stringify(filter) } : {} } };
      return unwrap(this.praxis.api.GET("/v1/agents/{agentId}/prompt", { params }));
    }
    retrieve(body2) {
      return unwrap(this.praxis.api.POST("/v1/agents/{agentId}/retrieve", { params: this.params, body: body2 }));
    }
    reward(body2) {
      return unwrap(this.praxis.api.POST("/v1/agents/{agentId}/rewards", { params: this.params, body: body2 }));
    }
    addExperience(experience) {
      const body2 = typeof experience === "string" ? { text: experience } : experience;
      return unwrap(this.praxis.api.POST("/v1/agents/{agentId}/experiences", { params: this.params, body: body2 }));
    }
    async startEpisode(task, metadata) {
      const ep = await unwrap(this.praxis.api.POST("/v1/agents/{agentId}/episodes", { params: this.params, body: { task, metadata } }));
      return new Episode(this, ep.episodeId, task);
    }
    /**
     * Runs `work` as one episode. When it returns, the episode ends as `success` with the returned
     * value as its answer (a string as it is, anything else as JSON; `options.answer` chooses
     * otherwise) and the ids or labels passed to `ep.cite(…)` as citations, unless `work` ended it
     * itself (`ep.end(…)`). Labels the answer quotes (`[G3]`) count as citations too, so the lessons
     * the model used are the ones that learn. When `work` throws, the episode ends as `abandoned`
     * and the error is rethrown: an exception (a model API's 404, a network error, a bug) says the
     * work stopped, not that the task was failed, so nothing is rewarded, penalised or kept as a
     * case. A task failure is what `work` reports itself: `await ep.end({ outcome: "failure" })`.
     */
    async withEpisode(task, work, options = {}) {
      const ep = await this.startEpisode(task, options.metadata);
      let value;
      try {
        value = await work(ep);
      } catch (err) {
        if (!ep.ended) {
          try {
            await ep.end({ outcome: "abandoned" });
          } catch {
          }
        }
        throw err;
      }
      if (!ep.ended) {
        const answer = (options.answer ?? answerText)(value);
        await ep.end({ outcome: "success", ...answer ? { answer } : {} });
      }
      return value;
    }
    /** The practice run's events as they happen, resuming across reconnects, until the run ends. */
    practiceEvents(runId2, options = {}) {
      return runEvents(async (lastEventId) => {
        const { response, error } = await this.praxis.api.GET("/v1/agents/{agentId}/practice-runs/{runId}/events", {
          params: { path: { agentId: this.id, runId: runId2 }, header: lastEventId ? { "last-event-id": String(lastEventId) } : {} },
          headers: { accept: "text/event-stream" },
          parseAs: "stream",
          signal: options.signal
        });
        if (!response.ok) throw new PraxisError(response.status, error, response.headers.get("x-request-id"));
        return response;
      });
    }
  };
  var Episode = class {
    constructor(agent, id, task) {
      this.agent = agent;
      this.id = id;
      this.task = task;
    }
    agent;
    id;
    task;
    /** The episode as ended (the API's answer), once `end` has been called. */
    ended = null;
    get params() {
      return { path: { agentId: this.agent.id, id: this.id } };
    }
    /** The prompt block for this episode (query defaults to the task); rewards reach what it showed. */
    prompt(query = {}) {
      return this.agent.prompt({ query: this.task, ...query, episodeId: this.id });
    }
    attempt(attempt) {
      return unwrap(this.agent.praxis.api.POST("/v1/agents/{agentId}/episodes/{id}/attempts", { params: this.params, body: attempt }));
    }
    /**
     * Marks memories the work used, by id (`exp_…`, `case_…`) or by the label it was shown with
     * (`G3`); only cited memories learn from the episode's reward. Ending sends them as `citedIds`.
     */
    cite(...idsOrLabels) {
      for (const id of idsOrLabels) this.cited.add(id.replace(/^\[(G\d+)\]$/, "$1"));
    }
    cited = /* @__PURE__ */ new Set();
    /**
     * Ends the episode (idempotent: the first result stays); rewards what it retrieved, or only what
     * was cited (`cite`, `citedIds`, `[G#]` quoted in the answer), and stores it as a case.
     */
    async end(result) {
      const citedIds = [.../* @__PURE__ */ new Set([...this.cited, ...result.citedIds ?? []])];
      const body2 = citedIds.length ? { ...result, citedIds } : result;
      this.ended = await unwrap(this.agent.praxis.api.POST("/v1/agents/{agentId}/episodes/{id}/end", { params: this.params, body: body2 }));
      return this.ended;
    }
  };
  var ANSWER_MAX = 8e3;
  function answerText(value) {
    if (value === void 0 || value === null) return void 0;
    let text;
    try {
      text = typeof value === "string" ? value : JSON.stringify(value);
    } catch {
    }
    return text ? text.slice(0, ANSWER_MAX) : void 0;
  }

  // src/dashboard/client/api.ts
  var KEY_STORAGE = "praxis.apiKey";
  var praxis = null;
  var unauthorized = () => void 0;
  function api() {
    praxis ??= new Praxis({ baseUrl: location.origin, apiKey: sessionStorage.getItem(KEY_STORAGE) ?? "" });
    return praxis.api;
  }
  function praxisClient() {
    api();
    return praxis;
  }
  var resetApi = () => void (praxis = null);
  var onUnauthorized = (fn) => void (unauthorized = fn);
  async function call(request) {
    try {
      return await unwrap(request);
    } catch (err) {
      if (err instanceof PraxisError && err.status === 401) unauthorized("The key was refused; sign in again.");
      throw err;
    }
  }
  var errorText = (err) => err instanceof Error ? err.message : String(err);
  var statusOf = (err) => err instanceof PraxisError ? err.status : void 0;
  async function pageAll(page2, max = 2e3) {
    const items = [];
    let cursor;
    do {
      const r = await page2(cursor);
      items.push(...r.items);
      cursor = r.nextCursor ?? void 0;
    } while (cursor && items.length < max);
    return items;
  }

  // src/dashboard/client/context.ts
  var body = document.body;
  var page = body.dataset.page ?? "";
  var agentId = body.dataset.agentId ?? "";
  var runId = body.dataset.runId ?? "";
  var itemId = body.dataset.itemId ?? "";
  var libraryId = body.dataset.libraryId ?? "";
  var enc = encodeURIComponent;
  var agentPage = (path = "", id = agentId) => `/dashboard/agents/${enc(id)}${path}`;
  var agentPath = (id = agentId) => ({ path: { agentId: id } });
  var lessonHref = (id) => agentPage(`/lessons/${enc(id)}`);
  var episodeHref = (id) => agentPage(`/episodes/${enc(id)}`);
  var libraryHref = (id) => `/dashboard/libraries/${enc(id)}`;
  var caseHref = (id) => agentPage(`/cases/${enc(id)}`);
  var jobHref = (id) => agentPage(`/jobs#${jobAnchor(id)}`);
  var jobAnchor = (id) => `job-${id}`;
  var retrievalHref = (episodeId, retrievalId) => `${episodeHref(episodeId)}#${retrievalAnchor(retrievalId)}`;
  var retrievalAnchor = (id) => `retrieval-${id}`;
  var runHref = (id, step) => agentPage(`/runs/${enc(id)}${step === void 0 ? "" : `#step-${step}`}`);
  var me = null;
  var setMe = (key) => void (me = key);
  var canWrite = () => !!me && me.scope !== "read" && (!me.agentIds || !agentId || me.agentIds.includes(agentId));
  var canAdmin = () => canWrite() && me?.scope === "admin";

  // src/dashboard/client/dom.ts
  var $ = (id) => {
    const el = document.getElementById(id);
    if (!el) throw new Error(`The page has no #${id}`);
    return el;
  };
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs ?? {})) {
      if (v === void 0 || v === null || v === false) continue;
      if (typeof v === "function") el.addEventListener(k.slice(2), v);
      else if (k === "text") el.textContent = String(v);
      else if (k === "class") el.className = String(v);
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    el.append(...nodes(children));
    return el;
  }
  function nodes(children) {
    return children.flat(Infinity).flatMap((c) => c === null || c === void 0 || c === false ? [] : [c instanceof Node ? c : String(c)]);
  }
  var fill = (id, ...children) => $(id).replaceChildren(...nodes(children));
  var setStatus = (text) => void ($("status").textContent = text);
  var empty = (text) => h("p", { class: "empty", text });
  var stat = (term, value) => h("div", {}, h("dt", { text: term }), h("dd", {}, value));
  var fmtQ = (q) => typeof q === "number" ? q.toFixed(3) : "—";
  var fmtInt = (n) => typeof n === "number" ? n.toLocaleString("en-US") : "—";
  var fmtPct = (x) => typeof x === "number" ? `${(x * 100).toFixed(1)}%` : "—";
  var fmtUsd = (x) => typeof x === "number" ? `$${x.toFixed(4)}` : "—";
  var fmtTime = (ms) => typeof ms === "number" ? `${new Date(ms).toISOString().replace("T", " ").slice(0, 19)} UTC` : "—";
  var plural = (n, word, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

  // src/dashboard/client/charts.ts
  var PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4d7c0f", "#be185d"];
  var color = (i) => PALETTE[i % PALETTE.length];
  var COUNT_INCRS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4];
  var bars = () => uPlot.paths.bars({ size: [0.9, 120], align: 0 });
  var HEIGHT = 260;
  var charts = /* @__PURE__ */ new Map();
  var fitValues = (u, values, axisIdx, cycleNum) => {
    const axis = u.axes[axisIdx];
    if (cycleNum > 1 && axis._size !== void 0) return axis._size;
    u.ctx.font = Array.isArray(axis.font) ? axis.font[0] : axis.font;
    const widest = Math.max(0, ...(values ?? []).map((v) => u.ctx.measureText(String(v)).width / devicePixelRatio));
    return Math.ceil((axis.ticks?.size ?? 10) + (axis.gap ?? 5) + widest);
  };
  function chart(containerId, opts, data, label) {
    charts.get(containerId)?.u.destroy();
    const box = h("figure", { class: "chart", role: "img", "aria-label": label });
    $(containerId).replaceChildren(box);
    const width = () => Math.max(260, box.clientWidth || $(containerId).clientWidth || 600);
    const axes = opts.axes?.map((a, i) => i === 0 || a.size !== void 0 ? a : { ...a, size: fitValues });
    const u = new uPlot({ width: width(), height: HEIGHT, ...opts, ...axes ? { axes } : {} }, data, box);
    charts.set(containerId, { u, width });
    return u;
  }
  addEventListener("resize", () => {
    for (const c of charts.values()) c.u.setSize({ width: c.width(), height: HEIGHT });
  });
  var line = (label, stroke, extra = {}) => ({
    label,
    stroke,
    width: 2,
    spanGaps: true,
    points: { show: true, size: 5 },
    ...extra
  });

  // src/dashboard/client/table.ts
  function dataTable(caption, cols, rows, options = {}) {
    let sortCol = -1;
    let dir = 1;
    const tbody = h("tbody");
    const heads = cols.map((c, i) => {
      const th = h("th", { scope: "col", class: c.num ? "num" : null });
      if (c.sort) {
        th.setAttribute("aria-sort", "none");
        th.append(h("button", { type: "button", class: "sort", onclick: () => sortBy(i) }, c.label));
      } else th.textContent = c.label;
      return th;
    });
    function render() {
      const shown = options.filter ? rows.filter(options.filter) : rows.slice();
      const key = cols[sortCol]?.sort;
      if (key) {
        shown.sort((a, b) => {
          const x = key(a);
          const y = key(b);
          return (x < y ? -1 : x > y ? 1 : 0) * dir;
        });
      }
      tbody.replaceChildren(
        ...shown.length ? shown.map(
          (r) => h(
            "tr",
            { id: options.rowId?.(r) ?? null },
            cols.map((c) => h("td", { class: c.num ? "num" : c.id ? "id" : null }, c.cell(r)))
          )
        ) : [h("tr", {}, h("td", { colspan: cols.length, class: "empty", text: "Nothing to show." }))]
      );
    }
    function sortBy(i) {
      dir = sortCol === i ? -dir : 1;
      sortCol = i;
      heads.forEach((th, j) => cols[j]?.sort && th.setAttribute("aria-sort", j === i ? dir > 0 ? "ascending" : "descending" : "none"));
      render();
    }
    render();
    const table = h("table", { id: options.id }, h("caption", { text: caption }), h("thead", {}, h("tr", {}, heads)), tbody);
    return Object.assign(h("div", { class: "table-wrap" }, table), { refresh: render });
  }
  function anyValue(v) {
    if (Array.isArray(v) && v.length && v.every((x) => x && typeof x === "object" && !Array.isArray(x))) {
      const records = v;
      const keys = [...new Set(records.flatMap((x) => Object.keys(x)))];
      const cell = (x) => x === null || x === void 0 ? "—" : typeof x === "object" ? JSON.stringify(x) : String(x);
      return dataTable(
        `${records.length} item${records.length === 1 ? "" : "s"}`,
        keys.map((k) => ({ label: k, cell: (r) => cell(r[k]) })),
        records
      );
    }
    if (Array.isArray(v) && v.length === 0) return empty("None.");
    return h("pre", {}, typeof v === "string" ? v : JSON.stringify(v, null, 2));
  }

  // src/dashboard/client/pages/agent.ts
  async function renderAgent() {
    const [analytics, experiences, held] = await Promise.all([
      call(api().GET("/v1/agents/{agentId}/analytics", { params: { ...agentPath(), query: { top: 3, buckets: 10 } } })),
      pageAll(
        (cursor) => call(api().GET("/v1/agents/{agentId}/experiences", { params: { ...agentPath(), query: { status: "all", limit: 200, cursor } } }))
      ),
      pageAll((cursor) => call(api().GET("/v1/agents/{agentId}/quarantine", { params: { ...agentPath(), query: { limit: 200, cursor } } })))
    ]);
    const ex = analytics.experiences;
    fill(
      "summary",
      h(
        "dl",
        { class: "stats" },
        stat("Library version", fmtInt(analytics.libraryVersion)),
        stat("Active experiences", fmtInt(ex.counts.active ?? 0)),
        stat("Quarantined", fmtInt(ex.counts.quarantined ?? 0)),
        stat("Pending", fmtInt(ex.counts.pending ?? 0)),
        stat("Mean Q", `${fmtQ(ex.q.mean)} ± ${fmtQ(ex.q.std)}`),
        stat("Retrievals", fmtInt(analytics.retrievals)),
        stat("Mean |ΔQ| (last updates)", fmtQ(analytics.convergence.meanAbsDeltaQ))
      )
    );
    renderHistogram(ex.q.histogram);
    await renderTrajectories(analytics);
    renderLibrary(experiences);
    renderQuarantine(held);
  }
  function renderHistogram(hist) {
    const first = hist[0];
    const last = hist[hist.length - 1];
    if (!first || !last || hist.every((b) => b.count === 0)) return fill("histogram", empty("No active experiences yet."));
    const width = first.to - first.from;
    chart(
      "histogram",
      {
        scales: { x: { time: false, range: [first.from, last.to] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [{ label: "Q" }, { label: "experiences", incrs: COUNT_INCRS }],
        series: [
          { label: "Q", value: (_u, v) => v === null ? "—" : `${(v - width / 2).toFixed(2)}…${(v + width / 2).toFixed(2)}` },
          { label: "count", stroke: color(0), fill: "rgba(37,99,235,0.45)", paths: bars(), points: { show: false } }
        ]
      },
      [hist.map((b) => (b.from + b.to) / 2), hist.map((b) => b.count)],
      `Histogram of Q over ${hist.reduce((n, b) => n + b.count, 0)} active experiences`
    );
  }
  async function renderTrajectories(analytics) {
    const picked = [...analytics.top.map((m) => ({ ...m, rank: "top" })), ...analytics.bottom.map((m) => ({ ...m, rank: "bottom" }))].filter(
      (m, i, all) => all.findIndex((o) => o.id === m.id) === i
    );
    const histories = await Promise.all(
      picked.map(
        (m) => call(api().GET("/v1/agents/{agentId}/experiences/{id}", { params: { path: { ...agentPath().path, id: m.id } } })).then((e) => ({
          m,
          hist: e.qHistory ?? []
        }))
      )
    );
    const withUpdates = histories.filter((x) => x.hist.length > 0);
    if (!withUpdates.length) return fill("trajectories", empty("No Q updates yet: rewards move Q."));
    const longest = Math.max(...withUpdates.map((x) => x.hist.length));
    const xs = Array.from({ length: longest + 1 }, (_, i) => i - longest);
    const data = [xs];
    const series = [{ label: "update" }];
    withUpdates.forEach((x, i) => {
      const firstUpdate = x.hist[0];
      const qs = [firstUpdate.q - firstUpdate.delta, ...x.hist.map((e) => e.q)];
      data.push(xs.map((_, j) => qs[j - (xs.length - qs.length)] ?? null));
      series.push(line(`${x.m.rank}: ${x.m.label ?? x.m.id}`, color(i)));
    });
    chart(
      "trajectories",
      { scales: { x: { time: false }, y: { range: [-1, 1] } }, axes: [{ label: "updates before now" }, { label: "Q" }], series },
      data,
      `Q over the last updates of ${withUpdates.length} memories`
    );
  }
  var labelOrder = (label) => label && /^G\d+$/.test(label) ? Number(label.slice(1)) : Number.MAX_SAFE_INTEGER;
  var sourceOf = (e) => `${e.source ?? "—"}${e.provenance?.origin === "hindsight" ? " (hindsight)" : ""}`;
  function originOf(e) {
    const p = e.provenance;
    if (p?.runId) return h("span", { class: "meta" }, " · ", h("a", { href: runHref(p.runId) }, p.runId));
    if (p?.episodeId) return h("span", { class: "meta" }, " · ", h("a", { href: episodeHref(p.episodeId) }, p.episodeId));
    if (p?.keyId) return h("span", { class: "meta" }, ` · key ${p.keyId}`);
    return null;
  }
  function renderLibrary(experiences) {
    const text = $("filter-text");
    const status = $("filter-status");
    const source = $("filter-source");
    const filter = (e) => {
      const needle = text.value.trim().toLowerCase();
      return (!needle || e.text.toLowerCase().includes(needle) || (e.label ?? "").toLowerCase().includes(needle)) && (!status.value || e.status === status.value) && (!source.value || e.source === source.value);
    };
    const wrap = dataTable(
      plural(experiences.length, "experience"),
      [
        { label: "Label", cell: (e) => e.label ?? "—", sort: (e) => labelOrder(e.label) },
        { label: "Text", cell: (e) => h("a", { class: "text", href: lessonHref(e.id) }, e.text), sort: (e) => e.text.toLowerCase() },
        { label: "Source", cell: (e) => [sourceOf(e), originOf(e)], sort: sourceOf },
        { label: "Q", cell: (e) => fmtQ(e.q), sort: (e) => e.q, num: true },
        { label: "Retrieved", cell: (e) => fmtInt(e.counts.retrieved), sort: (e) => e.counts.retrieved, num: true },
        { label: "Cited", cell: (e) => fmtInt(e.counts.cited), sort: (e) => e.counts.cited, num: true },
        { label: "Successes", cell: (e) => fmtInt(e.counts.successes), sort: (e) => e.counts.successes, num: true },
        { label: "Failures", cell: (e) => fmtInt(e.counts.failures), sort: (e) => e.counts.failures, num: true },
        {
          label: "Status",
          cell: (e) => h("span", { class: `badge ${e.status}` }, e.probation ? `${e.status} (probation)` : e.status),
          sort: (e) => e.status ?? ""
        },
        { label: "Pinned", cell: (e) => e.pinned ? "yes" : "no", sort: (e) => e.pinned ? 1 : 0 }
      ],
      experiences,
      { filter, id: "library-table" }
    );
    for (const el of [text, status, source]) el.addEventListener("input", () => wrap.refresh());
    $("library-filters").addEventListener("submit", (ev) => ev.preventDefault());
    fill("library", wrap);
  }
  function renderQuarantine(items) {
    if (!items.length) return fill("quarantine", empty("Nothing is held."));
    const act = async (e, what) => {
      const params = { params: { path: { ...agentPath().path, id: e.id } } };
      try {
        if (what === "release") await call(api().POST("/v1/agents/{agentId}/quarantine/{id}/release", params));
        else await call(api().DELETE("/v1/agents/{agentId}/quarantine/{id}", params));
        setStatus(`${what === "release" ? "Released" : "Deleted"} ${e.id}.`);
        await renderAgent();
      } catch (err) {
        setStatus(`Could not ${what} ${e.id}: ${errorText(err)}`);
      }
    };
    fill(
      "quarantine",
      h(
        "ul",
        { class: "items" },
        items.map(
          (e) => h(
            "li",
            {},
            h("p", { class: "text" }, e.kind === "experience" ? h("a", { href: lessonHref(e.id) }, e.text) : e.text),
            e.answer && h("p", { class: "text" }, `Answer: ${e.answer}`),
            h("p", {}, h("span", { class: `badge ${e.status}` }, e.status), " ", h("strong", {}, "Why: "), e.reason),
            h(
              "p",
              { class: "meta" },
              `${e.id} · ${e.kind} · through ${e.door} (${e.author}) · since ${fmtTime(e.heldAt)} · released it becomes ${e.wanted}`
            ),
            canAdmin() && h(
              "div",
              { class: "actions" },
              h("button", { type: "button", "data-write": "", onclick: () => act(e, "release") }, `Release ${e.id}`),
              h(
                "button",
                {
                  type: "button",
                  class: "danger",
                  "data-write": "",
                  onclick: () => confirm(`Delete ${e.id}? It stays deleted: no rollback or import brings it back.`) && act(e, "delete")
                },
                `Delete ${e.id}`
              )
            )
          )
        )
      )
    );
  }

  // src/dashboard/client/pages/agents.ts
  var DAY_MS = 864e5;
  async function renderAgents() {
    const agents = await pageAll((cursor) => call(api().GET("/v1/agents", { params: { query: { limit: 200, cursor } } })));
    const since = Date.now() - 7 * DAY_MS;
    const rows = await Promise.all(
      agents.map(async (a) => {
        const [analytics, episodes] = await Promise.all([
          call(api().GET("/v1/agents/{agentId}/analytics", { params: { ...agentPath(a.agentId), query: { top: 1 } } })),
          recentEpisodes(a.agentId, since)
        ]);
        const outcomes = episodes.filter((e) => e.outcome);
        const successes = outcomes.filter((e) => e.outcome === "success").length;
        return {
          a,
          size: analytics.experiences.counts.active ?? 0,
          meanQ: analytics.experiences.q.count ? analytics.experiences.q.mean : null,
          episodes: episodes.length,
          successRate: outcomes.length ? successes / outcomes.length : null
        };
      })
    );
    fill(
      "agents",
      dataTable(
        plural(rows.length, "agent"),
        [
          {
            label: "Agent",
            cell: (r) => h(
              "a",
              { href: agentPage("", r.a.agentId) },
              r.a.displayName && r.a.displayName !== r.a.agentId ? `${r.a.displayName} (${r.a.agentId})` : r.a.agentId
            ),
            sort: (r) => r.a.agentId
          },
          { label: "Library size", cell: (r) => fmtInt(r.size), sort: (r) => r.size, num: true },
          { label: "Mean Q", cell: (r) => fmtQ(r.meanQ), sort: (r) => r.meanQ ?? -2, num: true },
          { label: "Episodes (7 days)", cell: (r) => fmtInt(r.episodes), sort: (r) => r.episodes, num: true },
          { label: "Success rate (7 days)", cell: (r) => fmtPct(r.successRate), sort: (r) => r.successRate ?? -1, num: true },
          { label: "Last active", cell: (r) => fmtTime(r.a.lastActiveAt), sort: (r) => r.a.lastActiveAt ?? 0 }
        ],
        rows,
        { id: "agents-table" }
      )
    );
  }
  async function recentEpisodes(agentId2, since) {
    const out = [];
    let cursor;
    for (let pages = 0; pages < 10; pages++) {
      const r = await call(api().GET("/v1/agents/{agentId}/episodes", { params: { ...agentPath(agentId2), query: { limit: 200, cursor } } }));
      const fresh = r.items.filter((e) => e.createdAt >= since);
      out.push(...fresh);
      if (!r.nextCursor || fresh.length < r.items.length) break;
      cursor = r.nextCursor;
    }
    return out;
  }

  // src/dashboard/client/pages/case.ts
  async function renderCase() {
    const path = { path: { ...agentPath().path, id: itemId } };
    const c = await call(api().GET("/v1/agents/{agentId}/cases/{id}", { params: path }));
    fill(
      "case",
      h("p", { class: "lesson-text" }, c.task),
      h(
        "dl",
        { class: "stats" },
        stat("Id", c.id),
        stat("Status", h("span", { class: `badge ${c.status}` }, c.status)),
        stat("Label", c.label),
        stat("Reward", fmtQ(c.reward)),
        stat("Q", fmtQ(c.q)),
        stat("Retrieved / cited", `${fmtInt(c.counts.retrieved)} / ${fmtInt(c.counts.cited)}`),
        stat("Successes / failures", `${fmtInt(c.counts.successes)} / ${fmtInt(c.counts.failures)}`),
        stat("Episode", c.episodeId ? await episodeLink(c.episodeId) : "—"),
        stat("Tools", c.toolsUsed.join(", ") || "—"),
        stat("Tags", c.tags.join(", ") || "—"),
        stat("Created", fmtTime(c.createdAt)),
        stat("Last used", fmtTime(c.lastUsedAt))
      ),
      c.traceSummary ? h("div", {}, h("h3", {}, "What was tried"), h("pre", {}, c.traceSummary)) : null,
      c.answer ? h("div", {}, h("h3", {}, "Answer"), h("pre", {}, c.answer)) : null
    );
  }
  async function episodeLink(episodeId) {
    const params = { path: { ...agentPath().path, id: episodeId } };
    const found = await call(api().GET("/v1/agents/{agentId}/episodes/{id}", { params })).then(
      () => true,
      (err) => {
        if (statusOf(err) === 404) return false;
        throw err;
      }
    );
    return found ? h("a", { href: episodeHref(episodeId), "data-episode": episodeId }, episodeId) : h("code", {}, episodeId);
  }

  // src/dashboard/client/pages/episode.ts
  var outcomeBadge = (ep) => h("span", { class: `badge ${ep.outcome ?? ep.status}` }, ep.outcome ?? ep.status);
  async function renderEpisodes() {
    const episodes = await pageAll(
      (cursor) => call(api().GET("/v1/agents/{agentId}/episodes", { params: { ...agentPath(), query: { limit: 200, cursor } } })),
      400
    );
    fill(
      "episodes",
      dataTable(
        plural(episodes.length, "episode"),
        [
          { label: "Episode", cell: (e) => h("a", { href: episodeHref(e.id) }, e.id), sort: (e) => e.id, id: true },
          { label: "Task", cell: (e) => h("span", { class: "text" }, e.task), sort: (e) => e.task },
          { label: "Outcome", cell: outcomeBadge, sort: (e) => e.outcome ?? e.status },
          { label: "Attempts", cell: (e) => fmtInt(e.attempts.length), sort: (e) => e.attempts.length, num: true },
          { label: "Reward", cell: (e) => fmtQ(e.result?.reward), sort: (e) => e.result?.reward ?? -2, num: true },
          { label: "Started", cell: (e) => fmtTime(e.createdAt), sort: (e) => e.createdAt }
        ],
        episodes,
        { id: "episodes-table" }
      )
    );
  }
  async function renderEpisode() {
    const path = { path: { ...agentPath().path, id: itemId } };
    const [ep, retrievals] = await Promise.all([
      call(api().GET("/v1/agents/{agentId}/episodes/{id}", { params: path })),
      call(api().GET("/v1/agents/{agentId}/episodes/{id}/retrievals", { params: path })).then((r) => r.items)
    ]);
    const texts = await textsOf([
      ...new Set(retrievals.flatMap((r) => r.items.map((i) => i.id)).concat(ep.result?.rewarded.map((r) => r.id) ?? []))
    ]);
    fill(
      "episode",
      h("p", { class: "lesson-text" }, ep.task),
      h(
        "dl",
        { class: "stats" },
        stat("Status", ep.status),
        stat("Outcome", ep.outcome ?? "—"),
        stat("Score", ep.score === null ? "—" : fmtQ(ep.score)),
        stat("Reward", fmtQ(ep.result?.reward)),
        stat("Started", fmtTime(ep.createdAt)),
        stat("Ended", fmtTime(ep.endedAt)),
        stat("Case", caseCell(ep)),
        stat("Live extraction", extractionCell(ep)),
        stat("Taught", taughtCell(ep))
      ),
      ep.answer ? h("div", {}, h("h3", {}, "Answer"), h("pre", {}, ep.answer)) : null
    );
    fill(
      "attempts",
      ep.attempts.length ? dataTable(
        plural(ep.attempts.length, "attempt"),
        [
          { label: "#", cell: (a) => String(a.n), num: true },
          { label: "What was tried", cell: (a) => h("span", { class: "text" }, a.description) },
          { label: "Result", cell: (a) => h("span", { class: `badge ${a.ok ? "done" : "failed"}` }, a.ok ? "ok" : "failed") },
          { label: "Error", cell: (a) => a.error ? h("span", { class: "text" }, a.error) : "—" },
          { label: "Tools", cell: (a) => a.toolCalls.join(", ") || "—" },
          { label: "At", cell: (a) => fmtTime(a.at) }
        ],
        ep.attempts,
        { id: "attempts-table" }
      ) : empty("No attempts were logged.")
    );
    fill(
      "retrievals",
      retrievals.length ? retrievals.map((r, i) => retrievalView(r, i, texts)) : empty("Nothing was retrieved for this episode (or its retrievals are past retention).")
    );
    const rewarded = ep.result?.rewarded ?? [];
    fill(
      "credited",
      !ep.result ? empty("The episode has not ended: nothing is credited yet.") : rewarded.length ? dataTable(
        plural(rewarded.length, "credited memory", "credited memories"),
        [
          { label: "Memory", cell: (r) => memoryLink(r.id), id: true },
          { label: "Text", cell: (r) => h("span", { class: "text" }, texts.get(r.id) ?? "—") },
          { label: "Reward", cell: () => fmtQ(ep.result.reward), num: true },
          { label: "Q after", cell: (r) => fmtQ(r.q), num: true }
        ],
        rewarded,
        { id: "credited-table" }
      ) : empty(`Ending it (reward ${fmtQ(ep.result.reward)}) credited no memory: nothing active was retrieved for it.`)
    );
  }
  function caseCell(ep) {
    const c = ep.result?.case;
    if (!c) return ep.result?.caseId ? h("a", { href: caseHref(ep.result.caseId) }, ep.result.caseId) : "—";
    const link = h("a", { href: caseHref(c.id) }, c.id);
    if (c.status === "active") return link;
    return h("span", {}, link, " ", h("span", { class: `badge ${c.status}` }, c.status), c.reason ? ` ${c.reason}` : "");
  }
  function extractionCell(ep) {
    if (!ep.result) return "—";
    const jobId = ep.result.jobId;
    return jobId ? [ep.result.extraction, " (", h("a", { href: jobHref(jobId) }, jobId), ")"] : ep.result.extraction;
  }
  function taughtCell(ep) {
    const t = ep.result?.taught;
    if (!t) return "—";
    if (!t.lessonIds.length) return t.reason ?? "nothing";
    return h(
      "span",
      {},
      ...t.lessonIds.flatMap((id, i) => [i ? ", " : "", h("a", { href: lessonHref(id) }, id)]),
      t.operation ? ` (${t.operation})` : ""
    );
  }
  var memoryLink = (id) => {
    if (id.startsWith("exp_")) return h("a", { href: lessonHref(id) }, id);
    if (id.startsWith("case_")) return h("a", { href: caseHref(id) }, id);
    const shared = /^(lib_[^/]+)\//.exec(id);
    return shared ? h("a", { href: libraryHref(shared[1]) }, id) : h("code", {}, id);
  };
  var SIGNALS = [
    ["vectorSim", "similarity"],
    ["textBm25", "words (BM25)"],
    ["usageSim", "usage"],
    ["learnedPhrase", "phrases"],
    ["whenSim", "when"],
    ["q", "Q"],
    ["recency", "recency"]
  ];
  function retrievalView(r, i, texts) {
    return h(
      "section",
      { class: "retrieval", "data-retrieval": r.retrievalId, id: retrievalAnchor(r.retrievalId) },
      h("h3", {}, `${i + 1}. “${r.query}”`),
      h(
        "p",
        { class: "meta" },
        // The id links to this panel, so it can be shared and is the target the lesson's Q history links to.
        h("a", { href: `#${retrievalAnchor(r.retrievalId)}` }, r.retrievalId),
        ` · ${fmtTime(r.at)} · phase ${r.phase ?? "—"} · λ ${r.lambda} · ${r.rewarded ? "credited by a reward" : "not rewarded"}`
      ),
      dataTable(
        plural(r.items.length, "item"),
        [
          { label: "Rank", cell: (x) => String(r.items.indexOf(x) + 1), num: true },
          { label: "Shown as", cell: (x) => x.label ?? "—" },
          { label: "Memory", cell: (x) => memoryLink(x.id), id: true },
          { label: "Text", cell: (x) => h("span", { class: "text" }, texts.get(x.id) ?? "—") },
          { label: "Score", cell: (x) => x.score === null ? "—" : x.score.toFixed(3), num: true },
          ...SIGNALS.map(([k, label]) => ({
            label,
            cell: (x) => x.signals?.[k] === void 0 ? "—" : x.signals[k].toFixed(3),
            num: true
          }))
        ],
        r.items
      )
    );
  }
  async function textsOf(ids) {
    const out = /* @__PURE__ */ new Map();
    await Promise.all(
      ids.map(async (id) => {
        const path = { path: { ...agentPath().path, id } };
        if (id.startsWith("exp_")) {
          const e = await call(api().GET("/v1/agents/{agentId}/experiences/{id}", { params: path })).catch(() => null);
          if (e) out.set(id, e.text);
        } else {
          const c = await call(api().GET("/v1/agents/{agentId}/cases/{id}", { params: path })).catch(() => null);
          if (c) out.set(id, `Case: ${c.task}`);
        }
      })
    );
    return out;
  }

  // src/dashboard/client/pages/jobs.ts
  async function renderJobs() {
    const jobs = (await call(api().GET("/v1/agents/{agentId}/jobs", { params: { ...agentPath(), query: { limit: 200 } } }))).items;
    fill(
      "jobs",
      dataTable(
        plural(jobs.length, "job"),
        [
          { label: "Job", cell: (j) => h("a", { href: jobHref(j.id) }, j.id), sort: (j) => j.id, id: true },
          { label: "Type", cell: (j) => j.type, sort: (j) => j.type },
          { label: "Status", cell: (j) => h("span", { class: `badge ${j.status}` }, j.status), sort: (j) => j.status },
          { label: "Reason", cell: (j) => h("span", { class: "text" }, j.reason ?? "—") },
          { label: "Episode", cell: (j) => j.episodeId ? h("a", { href: episodeHref(j.episodeId) }, j.episodeId) : "—", id: true },
          { label: "Attempts", cell: (j) => fmtInt(j.attempts), sort: (j) => j.attempts, num: true },
          { label: "Created", cell: (j) => fmtTime(j.createdAt), sort: (j) => j.createdAt },
          { label: "Updated", cell: (j) => fmtTime(j.updatedAt), sort: (j) => j.updatedAt }
        ],
        jobs,
        { id: "jobs-table", rowId: (j) => jobAnchor(j.id) }
      )
    );
  }

  // src/dashboard/client/practice-view.ts
  var getRunLibrary = (runId2) => call(api().GET("/v1/agents/{agentId}/practice-runs/{runId}/library", { params: { path: { ...agentPath().path, runId: runId2 } } })).then(
    (r) => r,
    () => null
  );
  async function promotedIds(runId2) {
    const [lessons, runLibrary] = await Promise.all([
      pageAll(
        (cursor) => call(api().GET("/v1/agents/{agentId}/experiences", { params: { ...agentPath(), query: { status: "all", limit: 200, cursor } } }))
      ),
      getRunLibrary(runId2)
    ]);
    const byId = /* @__PURE__ */ new Map();
    const fromRun2 = lessons.filter((e) => e.provenance?.runId === runId2);
    for (const e of lessons) byId.set(e.id, e);
    for (const e of fromRun2) if (e.provenance?.runItemId) byId.set(e.provenance.runItemId, e);
    for (const item of runLibrary?.items ?? []) {
      if (byId.has(item.id)) continue;
      const match = fromRun2.find((e) => !e.provenance?.runItemId && e.text === item.text);
      if (match) byId.set(item.id, match);
    }
    return byId;
  }
  function stepOfRunId(id) {
    const m = /^px_.+_(\d+)_(\d+)_(\d+)$/.exec(id);
    return m ? { epoch: Number(m[1]), step: Number(m[2]) } : null;
  }
  var str = (x) => typeof x === "string" ? x : x === null || x === void 0 ? "" : JSON.stringify(x);
  var num = (x) => typeof x === "number" ? x : null;
  var arr = (x) => Array.isArray(x) ? x : [];
  var badge = (text) => h("span", { class: `badge ${text}` }, text);
  function idWithPromoted(id, promoted2) {
    const e = promoted2.get(id);
    if (!e) return h("code", {}, id);
    if (e.id === id) return h("a", { href: lessonHref(id) }, h("code", {}, id));
    return [h("code", {}, id), " → ", h("a", { href: lessonHref(e.id), "data-promoted": e.id }, h("code", {}, e.id))];
  }
  function stepPart(key, value, promoted2) {
    switch (key) {
      case "groups":
        return dataTable(
          plural(arr(value).length, "group"),
          [
            { label: "Task", cell: (g) => str(g.taskId), id: true },
            { label: "Kept", cell: (g) => g.kept ? "kept" : "filtered" },
            {
              label: "Rewards",
              cell: (g) => arr(g.rewards).map((r) => fmtQ(num(r))).join(", ")
            },
            { label: "Mean", cell: (g) => fmtQ(num(g.meanReward)), num: true },
            { label: "Why", cell: (g) => str(g.reason) || "—" }
          ],
          arr(value)
        );
      case "proposals":
        if (!arr(value).length) return empty("No group proposed anything.");
        return h(
          "ul",
          { class: "items proposals" },
          arr(value).map(
            (p) => h(
              "li",
              {},
              h("p", {}, h("strong", {}, `Task ${str(p.taskId)}`), p.provenance ? badge(str(p.provenance)) : null),
              p.analysis ? h("p", { class: "meta" }, str(p.analysis)) : null,
              h(
                "ol",
                {},
                arr(p.operations).map(
                  (o) => h(
                    "li",
                    {},
                    opLine(str(o.op), o.target ? [str(o.target)] : [], str(o.text)),
                    o.reason ? h("span", { class: "meta" }, ` — ${str(o.reason)}`) : null
                  )
                )
              )
            )
          )
        );
      case "plan": {
        const plan = value ?? {};
        return h(
          "div",
          {},
          plan.reasoning ? h("p", { class: "meta" }, str(plan.reasoning)) : null,
          arr(plan.operations).length ? h(
            "ol",
            { class: "plan" },
            arr(plan.operations).map(
              (o) => h(
                "li",
                {},
                opLine(str(o.op), [...o.id ? [str(o.id)] : [], ...arr(o.ids).map(str)], str(o.text), promoted2),
                o.provenance ? badge(str(o.provenance)) : null,
                o.reason ? h("span", { class: "meta" }, ` — ${str(o.reason)}`) : null
              )
            )
          ) : empty("The plan changed nothing.")
        );
      }
      case "diff":
        return dataTable(
          plural(arr(value).length, "change"),
          [
            { label: "Change", cell: (c) => [badge(str(c.op)), c.provenance ? badge(str(c.provenance)) : null] },
            { label: "Lesson", cell: (c) => idWithPromoted(str(c.id), promoted2), id: true },
            { label: "Before", cell: (c) => h("span", { class: "text" }, str(c.before) || "—") },
            { label: "After", cell: (c) => h("span", { class: "text" }, str(c.after) || "—") },
            { label: "Why", cell: (c) => str(c.reason) || (arr(c.from).length ? `merged ${arr(c.from).map(str).join(", ")}` : "—") }
          ],
          arr(value)
        );
      case "library":
        return dataTable(
          plural(arr(value).length, "lesson"),
          [
            { label: "Label", cell: (e) => str(e.label) },
            { label: "Lesson", cell: (e) => idWithPromoted(str(e.id), promoted2), id: true },
            { label: "Text", cell: (e) => h("span", { class: "text" }, str(e.text)) }
          ],
          arr(value)
        );
      case "dropped":
        return arr(value).length ? h(
          "ul",
          { class: "items" },
          arr(value).map((d) => h("li", {}, `${str(d.source)}: ${str(d.reason)}`, h("span", { class: "meta" }, ` (${opSummary(d.op)})`)))
        ) : empty("Nothing was dropped.");
      case "errors":
        return arr(value).length ? h(
          "ul",
          { class: "items" },
          arr(value).map(
            (e) => h("li", { class: "error" }, `${str(e.stage)}${e.taskId ? ` (task ${str(e.taskId)})` : ""}: ${str(e.error)}`)
          )
        ) : empty("No errors.");
      case "hindsight": {
        const hs = value ?? {};
        const count = (k) => typeof hs[k] === "number" ? String(hs[k]) : Array.isArray(hs[k]) ? String(hs[k].length) : "—";
        return h(
          "dl",
          { class: "stats" },
          stat("Calls (cap per step)", `${count("calls")} (${count("cap")})`),
          stat("Groups over the cap", count("overCap")),
          stat("Lessons proposed", count("proposals")),
          stat("Applied by the plan", count("applied")),
          stat("Refused: stated the answer", count("refusedLeaks")),
          stat("Hindsight lessons in the library", count("inLibrary"))
        );
      }
      default:
        return anyValue(value);
    }
  }
  function opSummary(op) {
    const o = op ?? {};
    return [str(o.op), str(o.text)].filter(Boolean).join(": ") || str(op);
  }
  function opLine(op, targets, text, promoted2) {
    const names = targets.map((t, i) => [i ? " + " : " ", promoted2 ? idWithPromoted(t, promoted2) : h("code", {}, t)]);
    return [h("strong", {}, op), names, text ? `: ${text}` : ""];
  }

  // src/dashboard/client/pages/lesson.ts
  async function renderLesson() {
    const e = await call(api().GET("/v1/agents/{agentId}/experiences/{id}", { params: { path: { ...agentPath().path, id: itemId } } }));
    renderSummary(e);
    await Promise.all([renderProvenance(e), renderReviews(e)]);
    renderQHistory(e);
  }
  function renderSummary(e) {
    fill(
      "lesson",
      h("p", { class: "lesson-text" }, e.text),
      h("p", {}, h("strong", {}, "When: "), e.when ?? h("span", { class: "meta" }, "not written (retrieval matches the text only)")),
      h(
        "dl",
        { class: "stats" },
        stat("Id", e.id),
        stat("Label", e.label ?? "—"),
        stat("Status", e.probation ? `${e.status} (probation)` : e.status ?? "—"),
        stat("Source", e.source ?? "—"),
        stat("Q", fmtQ(e.q)),
        stat("Retrieved / cited", `${fmtInt(e.counts.retrieved)} / ${fmtInt(e.counts.cited)}`),
        stat("Successes / failures", `${fmtInt(e.counts.successes)} / ${fmtInt(e.counts.failures)}`),
        stat("Exposures on probation", fmtInt(e.exposures)),
        stat("Tags", e.tags?.length ? e.tags.join(", ") : "—"),
        stat("Created", fmtTime(e.createdAt)),
        stat("Last used", fmtTime(e.lastUsedAt))
      )
    );
  }
  async function renderProvenance(e) {
    const p = e.provenance ?? {};
    const parts = [];
    if (p.runId) parts.push(await fromRun(e, p.runId, p.runItemId));
    if (p.episodeId) parts.push(await fromEpisode(p.episodeId));
    if (p.keyId) parts.push(h("p", { "data-provenance": "key" }, "Written through the API by key ", await keyName(p.keyId), "."));
    if (p.importedFrom) parts.push(h("p", {}, "Imported from ", h("code", {}, p.importedFrom), "."));
    if (p.note) parts.push(h("p", {}, h("strong", {}, "Note: "), p.note));
    if (!parts.length)
      parts.push(empty(`No provenance recorded: a ${e.source ?? "manual"} lesson written without naming a run, episode or key.`));
    fill("provenance", parts);
  }
  async function keyName(id) {
    const keys = await call(api().GET("/v1/keys", { params: { query: { limit: 200 } } })).then(
      (r) => r.items,
      () => []
    );
    const key = keys.find((k) => k.id === id);
    return key ? [h("strong", {}, key.name), ` (${key.scope}, `, h("code", {}, id), key.revokedAt ? `, revoked ${fmtTime(key.revokedAt)}` : "", ")"] : h("code", {}, id);
  }
  async function fromRun(e, runId2, runItemId) {
    const [run, library] = await Promise.all([
      call(api().GET("/v1/agents/{agentId}/practice-runs/{runId}", { params: { path: { ...agentPath().path, runId: runId2 } } })).catch(() => null),
      getRunLibrary(runId2)
    ]);
    const head = h(
      "p",
      { "data-provenance": "run" },
      `Learned by practice run `,
      h("a", { href: runHref(runId2) }, runId2),
      e.provenance?.origin ? ` (${e.provenance.origin === "hindsight" ? "in hindsight, from a group whose attempts all failed" : "from a group whose rewards differed"})` : "",
      "."
    );
    if (!run) return h("div", {}, head, empty("The run is gone (deleted with its agent or pruned)."));
    const item = library?.items.find((i) => runItemId ? i.id === runItemId : i.text === e.text);
    const runName = runItemId ?? item?.id;
    const perEpoch = run.progress.stepsPerEpoch || 1;
    const lineage = item?.lineage.filter((l) => l.epoch !== void 0 && l.step !== void 0) ?? [];
    const written = lineage[0] ?? (runName ? stepOfRunId(runName) : null);
    const stepN = written ? written.epoch * perEpoch + written.step : null;
    const out = [
      head,
      runName && h(
        "p",
        {},
        "In the run's library as ",
        h("code", { "data-run-item": runName }, runName),
        item ? ` (${item.label} of the final library)` : "",
        `; promoted to this agent's library as `,
        h("code", {}, e.id),
        "."
      )
    ];
    if (lineage.length) {
      out.push(
        h(
          "ol",
          { class: "lineage" },
          lineage.map((l) => {
            const n = l.epoch * perEpoch + l.step;
            return h(
              "li",
              {},
              `${l.op} in `,
              h("a", { href: runHref(runId2, n), "data-step-link": n }, `step ${n} (epoch ${l.epoch}, step ${l.step})`),
              l.provenance ? ` — ${l.provenance}` : "",
              l.from ? ` — merged ${l.from.join(", ")}` : ""
            );
          })
        )
      );
    }
    if (stepN !== null && runName) out.push(await stepEvidence(runId2, stepN, runName, item, e));
    return h("div", {}, out);
  }
  async function stepEvidence(runId2, n, runName, item, e) {
    const step = await call(
      api().GET("/v1/agents/{agentId}/practice-runs/{runId}/steps/{n}", { params: { path: { ...agentPath().path, runId: runId2, n } } })
    ).catch(() => null);
    if (!step) return empty(`Step ${n} is no longer recorded.`);
    const ids = /* @__PURE__ */ new Map([[runName, e]]);
    const diff = (Array.isArray(step.diff) ? step.diff : []).filter((c) => c.id === runName);
    const texts = new Set([e.text, item?.text].filter(Boolean));
    const plan = step.plan;
    const ops = (plan?.operations ?? []).filter((o) => texts.has(o.text ?? ""));
    return h(
      "section",
      { class: "evidence", id: "step-evidence" },
      h("h3", {}, `Step ${n}: the change`),
      stepPart("diff", diff, ids),
      h("h3", {}, "The plan operation"),
      stepPart("plan", { reasoning: plan?.reasoning, operations: ops }, ids),
      h("h3", {}, "The groups"),
      stepPart("groups", step.groups, ids),
      h("h3", {}, "The proposals"),
      stepPart("proposals", step.proposals, ids)
    );
  }
  async function fromEpisode(id) {
    const ep = await call(api().GET("/v1/agents/{agentId}/episodes/{id}", { params: { path: { ...agentPath().path, id } } })).catch(
      () => null
    );
    const link = h("a", { href: episodeHref(id), "data-provenance": "episode" }, id);
    if (!ep) return h("p", {}, "Learned from episode ", h("code", {}, id), " (no longer kept).");
    const failed = ep.attempts.filter((a) => !a.ok).length;
    return h(
      "div",
      {},
      h("p", {}, "Learned from episode ", link, `: “${ep.task}”`),
      h(
        "p",
        { class: "meta" },
        `${ep.attempts.length} attempts (${failed} failed), outcome ${ep.outcome ?? "open"}${ep.result ? `, reward ${fmtQ(ep.result.reward)}` : ""}.`
      )
    );
  }
  async function renderReviews(e) {
    const rows = [];
    if (e.status === "quarantined" || e.status === "pending") {
      try {
        const held = await call(api().GET("/v1/agents/{agentId}/quarantine/{id}", { params: { path: { ...agentPath().path, id: e.id } } }));
        rows.push(
          h(
            "p",
            {},
            h("span", { class: `badge ${held.status}` }, held.status),
            ` since ${fmtTime(held.heldAt)}, came in through ${held.door} (${held.author}); released it becomes ${held.wanted}.`
          ),
          h("p", {}, h("strong", {}, "Why: "), held.reason)
        );
      } catch (err) {
        if (statusOf(err) !== 404) throw err;
      }
    }
    rows.push(...trialRows(e));
    if (!rows.length) rows.push(h("p", {}, `Not held for review: ${e.status ?? "active"}${e.probation ? "" : ", trusted"}.`));
    fill("reviews", rows);
  }
  var VERDICT = {
    exploring: "On probation: retrievable, and shown in a share of the prompts it matches until the evidence decides.",
    graduated: "Graduated: the evidence says it helps; it left probation and is in every prompt it fits.",
    retired: "Retired: the evidence says it hurts; it was archived (see the library's versions).",
    inconclusive: "Inconclusive: no verdict after the most exposures a trial allows; on probation, out of prompts."
  };
  function trialRows(e) {
    const v = e.evidence.verdict;
    if (!v) return [];
    const pts = (x) => `${x >= 0 ? "+" : ""}${Math.round(100 * x)}`;
    const d = e.evidence.difference;
    return [
      h("p", { "data-trial": v }, h("strong", {}, "Trial in prompts: "), VERDICT[v]),
      h(
        "p",
        {},
        `Shown in ${fmtInt(e.evidence.shown.prompts)} rewarded prompts (${fmtInt(e.evidence.shown.successes)} succeeded at the first try), not shown in ${fmtInt(e.evidence.notShown.prompts)} matching ones (${fmtInt(e.evidence.notShown.successes)}).`,
        d ? ` Difference ${pts(d.estimate)} points, 99% interval ${pts(d.low)} to ${pts(d.high)}.` : "",
        e.evidence.decidedAt ? ` Decided ${fmtTime(e.evidence.decidedAt)}.` : ""
      )
    ];
  }
  function renderQHistory(e) {
    const hist = e.qHistory ?? [];
    if (!hist.length) return fill("q-history", empty("No reward has moved its Q yet."));
    const first = hist[0];
    chart(
      "q-history",
      {
        scales: { x: { time: false }, y: { range: [-1, 1] } },
        axes: [{ label: "update", incrs: COUNT_INCRS }, { label: "Q / reward" }],
        series: [{ label: "update" }, line("Q", color(0)), line("reward", color(1), { width: 1, dash: [3, 3] })]
      },
      [hist.map((_, i) => i), hist.map((x) => x.q), hist.map((x) => x.reward)],
      `Q of ${e.id} over ${hist.length} updates, starting at ${fmtQ(first.q - first.delta)}`
    );
    const from = (x) => x.episodeId ? [
      "episode ",
      h("a", { href: episodeHref(x.episodeId) }, x.episodeId),
      x.retrievalId ? [", retrieval ", h("a", { href: retrievalHref(x.episodeId, x.retrievalId) }, x.retrievalId)] : null
    ] : x.retrievalId ? ["retrieval ", h("code", {}, x.retrievalId)] : "a reward naming it";
    const table = dataTable(
      `${hist.length} updates`,
      [
        { label: "When", cell: (x) => fmtTime(x.at), sort: (x) => x.at },
        { label: "Reward", cell: (x) => fmtQ(x.reward), num: true },
        { label: "Q before", cell: (x) => fmtQ(x.q - x.delta), num: true },
        { label: "ΔQ", cell: (x) => `${x.delta >= 0 ? "+" : ""}${fmtQ(x.delta)}`, num: true },
        { label: "Q after", cell: (x) => fmtQ(x.q), num: true },
        { label: "From", cell: from }
      ],
      hist.slice().reverse(),
      { id: "q-history-table" }
    );
    document.getElementById("q-history").append(table);
  }

  // src/dashboard/client/pages/libraries.ts
  async function renderLibraries() {
    const libraries = await pageAll((cursor) => call(api().GET("/v1/libraries", { params: { query: { limit: 200, cursor } } })));
    fill(
      "libraries",
      dataTable(
        `${libraries.length} ${libraries.length === 1 ? "library" : "libraries"}`,
        [
          { label: "Library", cell: (l) => h("a", { href: libraryHref(l.libraryId) }, `${l.name} (${l.libraryId})`), sort: (l) => l.name },
          { label: "Description", cell: (l) => h("span", { class: "text" }, l.description ?? "—") },
          { label: "Created", cell: (l) => fmtTime(l.createdAt), sort: (l) => l.createdAt }
        ],
        libraries,
        { id: "libraries-table" }
      )
    );
  }
  var SUBSCRIBERS_SHOWN = 200;
  async function renderLibrary2() {
    const path = { libraryId };
    const library = await call(api().GET("/v1/libraries/{libraryId}", { params: { path } }));
    const [lessons, subscribers] = await Promise.all([
      pageAll(
        (cursor) => call(api().GET("/v1/libraries/{libraryId}/experiences", { params: { path, query: { status: "all", limit: 200, cursor } } }))
      ),
      call(api().GET("/v1/libraries/{libraryId}/subscribers", { params: { path, query: { limit: SUBSCRIBERS_SHOWN } } }))
    ]);
    fill(
      "library-summary",
      h("p", {}, library.description ?? ""),
      h(
        "dl",
        { class: "stats" },
        stat("Name", library.name),
        stat("Library version", fmtInt(library.libraryVersion ?? 0)),
        stat("Active lessons", fmtInt(lessons.filter((e) => e.status === "active").length)),
        stat("Subscribers", fmtInt(library.subscribers ?? 0)),
        stat("Created", fmtTime(library.createdAt))
      )
    );
    const across = new Map(subscribers.lessons.map((a) => [a.id, a]));
    fill(
      "library-lessons",
      dataTable(
        plural(lessons.length, "lesson"),
        [
          { label: "Id", cell: (e) => e.id, sort: (e) => e.id, id: true },
          { label: "Lesson", cell: (e) => h("span", { class: "text" }, e.text) },
          { label: "Status", cell: (e) => h("span", { class: `badge ${e.status}` }, e.status ?? "—"), sort: (e) => e.status ?? "" },
          {
            label: "Agents using it",
            cell: (e) => fmtInt(across.get(e.id)?.agents ?? 0),
            sort: (e) => across.get(e.id)?.agents ?? 0,
            num: true
          },
          { label: "Mean Q", cell: (e) => fmtQ(across.get(e.id)?.meanQ), sort: (e) => across.get(e.id)?.meanQ ?? -2, num: true },
          { label: "Uses", cell: (e) => fmtInt(across.get(e.id)?.uses ?? 0), sort: (e) => across.get(e.id)?.uses ?? 0, num: true },
          {
            label: "Successes / failures",
            cell: (e) => `${fmtInt(across.get(e.id)?.successes ?? 0)} / ${fmtInt(across.get(e.id)?.failures ?? 0)}`
          }
        ],
        lessons,
        { id: "library-lessons-table" }
      )
    );
    const text = new Map(lessons.map((e) => [e.id, e.text]));
    const rows = subscribers.items.flatMap((s) => s.lessons.map((l) => ({ agentId: s.agentId, weight: s.weight, ...l })));
    fill(
      "library-subscribers",
      subscribers.nextCursor ? h("p", { class: "hint" }, `The first ${SUBSCRIBERS_SHOWN} subscribers, by agent id; the lesson figures above are theirs.`) : null,
      h(
        "p",
        {},
        `${plural(subscribers.items.length, "agent")} subscribed: `,
        subscribers.items.map((s, i) => [
          i ? ", " : "",
          h("a", { href: agentPage("", s.agentId) }, s.agentId),
          ` (weight ${s.weight}${s.pinVersion === null ? "" : `, pinned to version ${s.pinVersion}`})`
        ])
      ),
      dataTable(
        "Per-agent Q",
        [
          { label: "Agent", cell: (r) => h("a", { href: agentPage("", r.agentId) }, r.agentId), sort: (r) => r.agentId },
          { label: "Lesson", cell: (r) => h("span", { class: "text" }, text.get(r.id) ?? r.id), sort: (r) => r.id },
          { label: "Q", cell: (r) => fmtQ(r.q), sort: (r) => r.q, num: true },
          { label: "Retrieved", cell: (r) => fmtInt(r.retrieved), sort: (r) => r.retrieved, num: true },
          { label: "Successes", cell: (r) => fmtInt(r.successes), sort: (r) => r.successes, num: true },
          { label: "Failures", cell: (r) => fmtInt(r.failures), sort: (r) => r.failures, num: true },
          { label: "Last used", cell: (r) => fmtTime(r.lastUsedAt), sort: (r) => r.lastUsedAt ?? 0 }
        ],
        rows,
        { id: "library-subscribers-table" }
      )
    );
  }

  // src/dashboard/client/pages/run.ts
  var runPath = () => ({ path: { ...agentPath().path, runId } });
  var getRun = () => call(api().GET("/v1/agents/{agentId}/practice-runs/{runId}", { params: runPath() }));
  var getCurve = () => call(api().GET("/v1/agents/{agentId}/practice-runs/{runId}/curve", { params: runPath() }));
  var TERMINAL = /* @__PURE__ */ new Set(["completed", "failed", "cancelled", "budget-exhausted"]);
  var datasetName = null;
  async function renderRun() {
    const first = await getRun();
    datasetName = await call(api().GET("/v1/datasets/{datasetId}", { params: { path: { datasetId: first.datasetId } } })).then(
      (d) => d.name,
      () => null
    );
    await refreshRun();
    if (!TERMINAL.has(first.status)) void followEvents();
  }
  var refreshing = null;
  var again = false;
  function refreshRun() {
    if (refreshing) {
      again = true;
      return refreshing;
    }
    refreshing = (async () => {
      do {
        again = false;
        const view = await getRun();
        promoted = null;
        renderProgress(view);
        await renderCurve(view);
        await renderSteps();
      } while (again);
    })().finally(() => refreshing = null);
    return refreshing;
  }
  function renderProgress(v) {
    const p = v.progress;
    const epochs = v.config.epochs ?? 1;
    const totalSteps = epochs * p.stepsPerEpoch;
    const finished = v.trainReward.filter((t) => t.meanReward !== null).length;
    const running = !TERMINAL.has(v.status);
    const cancel = canWrite() && running && h(
      "button",
      {
        type: "button",
        class: "danger",
        "data-write": "",
        onclick: async () => {
          if (!confirm("Cancel this run? Nothing is promoted.")) return;
          await call(api().POST("/v1/agents/{agentId}/practice-runs/{runId}/cancel", { params: runPath() })).catch(
            (err) => setStatus(`Cancel failed: ${errorText(err)}`)
          );
          await refreshRun();
        }
      },
      "Cancel run"
    );
    fill(
      "progress",
      h("p", {}, "Status: ", h("span", { class: `badge ${v.status}`, id: "run-status" }, v.status), v.error ? ` — ${v.error}` : ""),
      h(
        "dl",
        { class: "stats" },
        stat("Dataset", datasetName ?? v.datasetId),
        stat("Steps finished", totalSteps ? `${finished} of ${totalSteps}` : "—"),
        stat("Epochs", fmtInt(epochs)),
        // Epochs and steps numbered from 0, as the API and the CLI number them.
        stat("Now at", running ? `epoch ${p.epoch}, step ${p.step}` : "—"),
        stat("Stage", running && p.stage || "—"),
        stat("Rollouts", `${fmtInt(p.rollouts.done)} of ${fmtInt(p.rollouts.total)}`),
        stat("Groups kept / filtered", `${fmtInt(p.groups.kept)} / ${fmtInt(p.groups.filtered)}`),
        stat("Library size", fmtInt(v.librarySize)),
        stat(
          "Hindsight calls / applied / leaks refused",
          `${fmtInt(v.hindsight.calls)} / ${fmtInt(v.hindsight.applied)} / ${fmtInt(v.hindsight.refusedLeaks)}`
        ),
        stat("Tokens in / out", `${fmtInt(v.usage.tokensIn)} / ${fmtInt(v.usage.tokensOut)}`),
        stat("LLM calls", fmtInt(v.usage.calls)),
        stat("Cost", fmtUsd(v.usage.costUsd))
      ),
      // The bar follows the step in progress; a finished run has none.
      running && h("label", { for: "rollout-progress" }, "Rollouts of this step"),
      running && h(
        "progress",
        { id: "rollout-progress", max: Math.max(1, p.rollouts.total), value: p.rollouts.done },
        `${p.rollouts.done} of ${p.rollouts.total}`
      ),
      v.promotion ? h(
        "p",
        {},
        `Promotion: ${v.promotion.promoted ? `promoted as library v${v.promotion.version}` : "not promoted"} — ${v.promotion.reason}`
      ) : null,
      v.promotion?.decision ? decisionView(v.promotion.decision) : null,
      cancel
    );
  }
  var signed = (x) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(3)}`;
  function decisionView(d) {
    const interval = d.interval ? `[${signed(d.interval[0])}, ${signed(d.interval[1])}]` : "—";
    const verdict = { better: "better", "not-better": "not better", undecided: "not sure" }[d.verdict];
    return h(
      "div",
      { id: "gate-decision" },
      h(
        "dl",
        { class: "stats" },
        stat(`Paired difference on ${d.split} (epoch ${d.candidateEpoch} − start)`, d.difference === null ? "—" : signed(d.difference)),
        stat(`${(d.level * 100).toFixed(d.level === 0.95 ? 0 : 2)}% interval`, interval),
        stat("Verdict", verdict),
        stat("Sign-flip p (one-sided)", d.p === null ? "—" : d.p.toPrecision(2)),
        stat("Paired tasks × samples", `${fmtInt(d.tasks)} × ${fmtInt(d.samples)}`),
        stat("Rounds / evaluation rollouts", `${fmtInt(d.rounds)} / ${fmtInt(d.rollouts)}`),
        d.selection ? stat(`Chosen on ${d.selection.split}`, `epoch ${d.selection.epoch} (${fmtPct(d.selection.accuracy)})`) : null
      ),
      h("p", { class: "meta" }, `Rule: ${d.rule}.`)
    );
  }
  var evalX = (epoch, perEpoch) => epoch * perEpoch - 0.5;
  async function renderCurve(view) {
    const curve = await getCurve();
    const perEpoch = view.progress.stepsPerEpoch || 1;
    if (!curve.steps.length && !curve.epochs.length) return fill("curve", empty("No step has finished yet."));
    const stepX = new Map(curve.steps.map((s) => [s.epoch * perEpoch + s.step, s]));
    const split = curve.epochs.some((e) => e.split === "validation") ? "validation" : curve.epochs[0]?.split ?? "holdout";
    const plotted = curve.epochs.filter((e) => e.round === 0 && e.split === split);
    const evals = new Map(plotted.map((e) => [evalX(e.epoch, perEpoch), e]));
    const xs = [.../* @__PURE__ */ new Set([...stepX.keys(), ...evals.keys()])].sort((a, b) => a - b);
    const atStep = (pick) => xs.map((x) => stepX.has(x) ? pick(stepX.get(x)) : null);
    const atEval = (pick) => xs.map((x) => evals.has(x) ? pick(evals.get(x)) ?? null : null);
    const data = [xs, atStep((s) => s.trainReward), atStep((s) => s.librarySize)];
    const xLabel = (x) => {
      if (Number.isInteger(x)) return `step ${x}`;
      const epoch = (x + 0.5) / perEpoch;
      return epoch === 0 ? "starting library" : `library after epoch ${epoch}`;
    };
    const series = [
      { label: "step", value: (_u, v) => v === null ? "—" : xLabel(v) },
      line("mean train reward", color(0), { scale: "r" }),
      line("library size", color(2), { scale: "n", dash: [6, 4] })
    ];
    if (plotted.length) {
      data.push(
        atEval((e) => e.holdoutAccuracy),
        atEval((e) => e.interval?.[0]),
        atEval((e) => e.interval?.[1])
      );
      series.push(
        line(`${split} accuracy`, color(1), { scale: "r" }),
        line("interval low", "#f87171", { scale: "r", width: 1, dash: [2, 3] }),
        line("interval high", "#f87171", { scale: "r", width: 1, dash: [2, 3] })
      );
    }
    chart(
      "curve",
      {
        scales: { x: { time: false }, r: { range: [0, 1] }, n: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [
          { label: "step", incrs: COUNT_INCRS },
          { scale: "r", label: "reward / accuracy" },
          { scale: "n", side: 1, label: "library size", grid: { show: false } }
        ],
        series
      },
      data,
      `Learning curve over ${curve.steps.length} steps and ${plotted.length} ${split} evaluations`
    );
    const tokens = curve.steps.reduce((n, s) => n + (s.tokens ?? 0), 0);
    $("curve").append(
      h("p", { class: "meta" }, `${fmtInt(tokens)} tokens over ${curve.steps.length} finished step${curve.steps.length === 1 ? "" : "s"}.`),
      // The plotted points as a table: what a screen reader reads, and what a test compares with the API.
      h(
        "details",
        {},
        h("summary", {}, "The plotted points"),
        dataTable(
          "Learning curve points",
          [
            { label: "x", cell: (i) => String(xs[i]), num: true },
            { label: "At", cell: (i) => xLabel(xs[i]) },
            ...series.slice(1).map((s, k) => ({ label: String(s.label), cell: (i) => fmtPoint(data[k + 1][i]), num: true }))
          ],
          xs.map((_, i) => i),
          { id: "curve-points" }
        )
      )
    );
  }
  var fmtPoint = (v) => typeof v === "number" ? String(Math.round(v * 1e6) / 1e6) : "";
  var openSteps = /* @__PURE__ */ new Set();
  var promoted = null;
  async function renderSteps() {
    const steps = (await call(api().GET("/v1/agents/{agentId}/practice-runs/{runId}/steps", { params: runPath() }))).items;
    if (!steps.length) return fill("steps", empty("No step has started yet."));
    const linked = /^#step-(\d+)$/.exec(location.hash);
    if (linked) openSteps.add(Number(linked[1]));
    fill(
      "steps",
      steps.map((s) => {
        const n = Number(s.n);
        const usage = s.usage;
        const tokens = usage ? (usage.tokensIn ?? 0) + (usage.tokensOut ?? 0) : null;
        const num2 = (x) => typeof x === "number" ? x : null;
        const details = h(
          "details",
          { "data-step": n, id: `step-${n}`, open: openSteps.has(n) },
          h(
            "summary",
            {},
            `Step ${n} (epoch ${s.epoch}, step ${s.step}) — ${s.status}, mean reward ${fmtQ(num2(s.meanReward))}, library ${fmtInt(num2(s.librarySize))}, ${fmtInt(tokens)} tokens`
          ),
          h("div", { class: "step-body" })
        );
        details.addEventListener("toggle", () => {
          if (details.open) openSteps.add(n);
          else openSteps.delete(n);
          if (details.open) void loadStep(details, n);
        });
        if (details.open) void loadStep(details, n);
        return details;
      })
    );
    if (linked) $(`step-${linked[1]}`).scrollIntoView();
  }
  var STEP_BASE = /* @__PURE__ */ new Set(["n", "epoch", "step", "status", "tasks", "meanReward", "librarySize", "usage", "startedAt", "endedAt"]);
  var STEP_TITLES = {
    groups: "Groups",
    proposals: "Proposals (one group advantage call per kept group)",
    plan: "Plan (the batch update)",
    diff: "Library diff",
    library: "Library at the start of the step",
    dropped: "Dropped operations",
    errors: "Errors",
    hindsight: "Hindsight"
  };
  var STEP_ORDER = ["groups", "proposals", "plan", "diff", "dropped", "errors", "hindsight", "library"];
  async function loadStep(details, n) {
    const target = details.querySelector(".step-body");
    promoted ??= promotedIds(runId);
    const [s, ids] = await Promise.all([
      call(api().GET("/v1/agents/{agentId}/practice-runs/{runId}/steps/{n}", { params: { path: { ...runPath().path, n } } })),
      promoted
    ]);
    const parts = Object.entries(s).filter(([k]) => !STEP_BASE.has(k)).sort(([a], [b]) => (STEP_ORDER.indexOf(a) + 1 || 99) - (STEP_ORDER.indexOf(b) + 1 || 99));
    target?.replaceChildren(
      ...parts.map(([k, v]) => h("section", { "data-part": k }, h("h3", { text: STEP_TITLES[k] ?? k }), stepPart(k, v, ids)))
    );
  }
  async function followEvents() {
    for (let attempt = 0; attempt < 100; attempt++) {
      let ended = false;
      try {
        for await (const e of praxisClient().agent(agentId).practiceEvents(runId)) {
          if (e.type === "end") ended = true;
          body.dataset.lastEvent = e.type;
          refreshRun().catch((err) => setStatus(`Refresh failed: ${errorText(err)}`));
        }
      } catch (err) {
        setStatus(`Event stream interrupted: ${errorText(err)}`);
      }
      const view = await getRun();
      if (ended || TERMINAL.has(view.status)) return refreshRun();
      await new Promise((r) => setTimeout(r, 1e3));
    }
  }

  // src/dashboard/client/pages/runs.ts
  function outcomeOf(r) {
    const promotion = r.summary?.promotion;
    if (promotion)
      return promotion.promoted ? `promoted as v${promotion.version} — ${promotion.reason ?? ""}` : `not promoted — ${promotion.reason ?? ""}`;
    if (r.error) return r.error;
    return r.status === "running" || r.status === "queued" ? "in progress" : "—";
  }
  async function renderRuns() {
    const [runs, datasets] = await Promise.all([
      pageAll(
        (cursor) => call(api().GET("/v1/agents/{agentId}/practice-runs", { params: { ...agentPath(), query: { limit: 200, cursor } } })),
        400
      ),
      // A key limited to some agents may not list the tenant's datasets: the ids stand in for their names.
      pageAll((cursor) => call(api().GET("/v1/datasets", { params: { query: { limit: 200, cursor } } })), 2e3).catch(() => [])
    ]);
    const names = new Map(datasets.map((d) => [d.datasetId, d.name]));
    const dataset = (id) => names.get(id) ?? id;
    fill(
      "runs",
      dataTable(
        plural(runs.length, "run"),
        [
          { label: "Run", cell: (r) => h("a", { href: agentPage(`/runs/${enc(r.runId)}`) }, r.runId), sort: (r) => r.runId, id: true },
          { label: "Status", cell: (r) => h("span", { class: `badge ${r.status}` }, r.status), sort: (r) => r.status },
          {
            label: "Dataset",
            cell: (r) => h("span", { title: r.datasetId }, dataset(r.datasetId)),
            sort: (r) => dataset(r.datasetId),
            id: true
          },
          { label: "Outcome", cell: (r) => h("span", { class: "text" }, outcomeOf(r)), sort: outcomeOf },
          { label: "Started", cell: (r) => fmtTime(r.createdAt), sort: (r) => r.createdAt },
          { label: "Updated", cell: (r) => fmtTime(r.updatedAt), sort: (r) => r.updatedAt }
        ],
        runs,
        { id: "runs-table" }
      )
    );
  }

  // src/dashboard/client/pages/usage.ts
  var DAY_MS2 = 864e5;
  async function renderUsage() {
    const byDay = await call(api().GET("/v1/usage", { params: { query: { groupBy: "day" } } }));
    const days = byDay.groups.filter((g) => g.key).sort((a, b) => (a.key ?? "") < (b.key ?? "") ? -1 : 1);
    const span = [];
    for (let ms = Math.floor(byDay.from / DAY_MS2) * DAY_MS2; ms <= byDay.to; ms += DAY_MS2) span.push(ms);
    const at = new Map(days.map((d) => [d.key, d]));
    const series = span.map((ms) => at.get(new Date(ms).toISOString().slice(0, 10)) ?? { tokensIn: 0, tokensOut: 0 });
    if (!days.length) fill("usage-chart", empty("No LLM calls in the last 30 days."));
    else
      chart(
        "usage-chart",
        {
          scales: { x: { time: true } },
          axes: [{}, { label: "tokens" }],
          series: [{ label: "day" }, line("tokens in", color(0)), line("tokens out", color(1))]
        },
        [span.map((ms) => ms / 1e3), series.map((d) => d.tokensIn), series.map((d) => d.tokensOut)],
        `Tokens per day over the last ${span.length} days`
      );
    const recent = days.slice(-7).reverse();
    const rows = (await Promise.all(
      recent.map(async (d) => {
        const day = d.key ?? "";
        const r = await call(api().GET("/v1/usage", { params: { query: { groupBy: "purpose", from: day, to: day } } }));
        return r.groups.map((g) => ({ day, ...g }));
      })
    )).flat();
    fill(
      "usage-table",
      h(
        "p",
        { class: "meta" },
        `Last 30 days: ${fmtInt(byDay.totals.calls)} calls, ${fmtInt(byDay.totals.tokensIn + byDay.totals.tokensOut)} tokens, ${fmtUsd(byDay.totals.costUsd)}.`
      ),
      dataTable(
        "The last 7 days with calls, by purpose",
        [
          { label: "Day (UTC)", cell: (r) => r.day, sort: (r) => r.day },
          { label: "Purpose", cell: (r) => r.key ?? "—", sort: (r) => r.key ?? "" },
          { label: "Calls", cell: (r) => fmtInt(r.calls), sort: (r) => r.calls, num: true },
          { label: "Tokens in", cell: (r) => fmtInt(r.tokensIn), sort: (r) => r.tokensIn, num: true },
          { label: "Tokens out", cell: (r) => fmtInt(r.tokensOut), sort: (r) => r.tokensOut, num: true },
          { label: "Cost", cell: (r) => fmtUsd(r.costUsd), sort: (r) => r.costUsd, num: true }
        ],
        rows,
        { id: "usage-table-rows" }
      )
    );
  }

  // src/dashboard/client/pages/versions.ts
  function reasonWithLinks(reason) {
    return reason.split(/\b(run_[0-9a-f]{24})\b/).map((part, i) => i % 2 ? h("a", { href: runHref(part) }, part) : part);
  }
  async function renderVersions(selected) {
    const versions = await pageAll(
      (cursor) => call(
        api().GET("/v1/agents/{agentId}/library/versions", {
          params: { ...agentPath(), query: { limit: 200, cursor: cursor === void 0 ? void 0 : Number(cursor) } }
        })
      ),
      200
    );
    const latest = versions[0]?.version;
    fill(
      "versions",
      versions.length ? h(
        "ol",
        { class: "timeline", reversed: true },
        versions.map(
          (v) => h(
            "li",
            { "data-version": v.version },
            h(
              "p",
              {},
              h("strong", {}, `v${v.version}`),
              ` · ${fmtTime(v.createdAt)} · ${v.author}`,
              v.version === latest ? h("span", { class: "badge active" }, "current") : null
            ),
            h("p", { class: "text" }, reasonWithLinks(v.reason)),
            h("p", { class: "meta" }, `${v.changes} change${v.changes === 1 ? "" : "s"}`),
            h(
              "div",
              { class: "actions" },
              h("button", { type: "button", onclick: () => renderDiff(v.version) }, `Diff of v${v.version}`),
              canWrite() && v.version !== latest && h(
                "button",
                { type: "button", class: "danger", "data-write": "", onclick: () => askRollback(v) },
                `Roll back to v${v.version}`
              )
            )
          )
        )
      ) : empty("No versions yet.")
    );
    const shown = selected ?? latest;
    if (shown !== void 0) await renderDiff(shown);
  }
  async function renderDiff(n) {
    const d = await call(api().GET("/v1/agents/{agentId}/library/versions/{n}/diff", { params: { path: { ...agentPath().path, n } } }));
    const snap = (s) => s ? h(
      "div",
      {},
      h("span", { class: "text" }, s.text),
      h("span", { class: "meta" }, ` (${s.status}, Q ${fmtQ(s.q)}${s.pinned ? ", pinned" : ""})`)
    ) : "—";
    fill(
      "diff",
      h("p", {}, h("strong", {}, `v${d.version}`), ` by ${d.author}: `, reasonWithLinks(d.reason)),
      dataTable(
        `What v${d.version} changed`,
        [
          { label: "Operation", cell: (r) => h("span", { class: `badge ${r.op}` }, r.op) },
          { label: "Experience", cell: (r) => h("a", { href: lessonHref(r.id) }, r.id), id: true },
          { label: "Before", cell: (r) => snap(r.before) },
          { label: "After", cell: (r) => snap(r.after) }
        ],
        d.diff,
        { id: "diff-table" }
      )
    );
  }
  function askRollback(v) {
    const dialog = $("rollback-dialog");
    $("rollback-text").textContent = `The library becomes what it was after v${v.version} (${v.reason}). This is recorded as a new version, so it can be undone the same way.`;
    dialog.returnValue = "";
    dialog.onclose = async () => {
      if (dialog.returnValue !== "confirm") return;
      try {
        const key = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
        const r = await call(
          api().POST("/v1/agents/{agentId}/library/rollback", {
            params: agentPath(),
            body: { version: v.version },
            headers: { "idempotency-key": `dash-${key}` }
          })
        );
        setStatus(
          r.unchanged ? `The library already equals v${v.version}.` : `Rolled back to v${v.version}: now v${r.libraryVersion} (${r.changed} changed, ${r.deleted} deleted).`
        );
        await renderVersions(r.libraryVersion);
      } catch (err) {
        setStatus(`Rollback failed: ${errorText(err)}`);
      }
    };
    dialog.showModal();
  }

  // src/dashboard/client/main.ts
  var PAGES = {
    agents: renderAgents,
    agent: renderAgent,
    versions: () => renderVersions(),
    runs: renderRuns,
    run: renderRun,
    jobs: renderJobs,
    lesson: renderLesson,
    episodes: renderEpisodes,
    episode: renderEpisode,
    case: renderCase,
    usage: renderUsage,
    libraries: renderLibraries,
    library: renderLibrary2
  };
  function signOut(message) {
    sessionStorage.removeItem(KEY_STORAGE);
    resetApi();
    setMe(null);
    $("main").hidden = true;
    $("session").hidden = true;
    $("sign-in").hidden = false;
    $("sign-in-error").textContent = message ?? "";
    $("api-key").focus();
  }
  onUnauthorized(signOut);
  function notFound(err) {
    for (const el of $("main").querySelectorAll(".card")) el.hidden = true;
    $("status").replaceChildren(`Not found: ${errorText(err)} `, h("a", { href: "/dashboard" }, "Back to the agents"));
    body.dataset.ready = "not-found";
  }
  function revealTarget() {
    const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!target) return;
    target.dataset.targeted = "";
    target.scrollIntoView({ block: "center" });
  }
  async function start() {
    let me2;
    try {
      me2 = await call(api().GET("/v1/keys/current"));
    } catch (err) {
      if (statusOf(err) !== 401) signOut(`Could not check the key: ${errorText(err)}`);
      return;
    }
    setMe(me2);
    $("sign-in").hidden = true;
    $("session").hidden = false;
    $("who").textContent = `${me2.name} (${me2.scope} key${me2.agentIds ? ` for ${me2.agentIds.join(", ")}` : ""})`;
    $("main").hidden = false;
    body.dataset.scope = me2.scope;
    setStatus("Loading…");
    try {
      if (agentId) await call(api().GET("/v1/agents/{agentId}", { params: agentPath() }));
      await PAGES[page]?.();
      revealTarget();
      setStatus("");
      body.dataset.ready = "true";
    } catch (err) {
      if (statusOf(err) === 404) return notFound(err);
      setStatus(`Could not load this page: ${errorText(err)}`);
      body.dataset.ready = "error";
    }
  }
  $("sign-in-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const input = $("api-key");
    const key = input.value.trim();
    if (!key) return;
    sessionStorage.setItem(KEY_STORAGE, key);
    resetApi();
    input.value = "";
    void start();
  });
  $("sign-out").addEventListener("click", () => signOut("Signed out."));
  if (sessionStorage.getItem(KEY_STORAGE)) void start();
  else signOut();
})();
