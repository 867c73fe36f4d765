import { describe, expect, it } from "vitest";
import { digestError, digestIfTrace } from "../../src/core/stack-digest";

const PY_SIMPLE = `Traceback (most recent call last):
  File "/home/runner/work/app/main.py", line 88, in <module>
    main()
  File "/home/runner/work/app/main.py", line 80, in main
    result = fetch_all(urls, timeout=5)
             ^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/runner/work/app/fetcher.py", line 42, in fetch_all
    return [fetch(u, timeout) for u in urls]
            ^^^^^^^^^^^^^^^^^
  File "/home/runner/work/app/fetcher.py", line 31, in fetch
    raise TimeoutError(f"request to {url} exceeded {timeout}s")
TimeoutError: request to https://api.internal/v1/items exceeded 5s
`;

const PY_CHAINED = `Traceback (most recent call last):
  File "/srv/app/settings.py", line 12, in load
    raw = open(path).read()
          ^^^^^^^^^^
FileNotFoundError: [Errno 2] No such file or directory: 'config.yaml'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/srv/app/cli.py", line 55, in <module>
    cfg = settings.load("config.yaml")
  File "/srv/app/settings.py", line 14, in load
    raise ConfigError("missing config") from None
  File "/usr/local/lib/python3.12/site-packages/pydantic/main.py", line 212, in __init__
    validated_self = self.__pydantic_validator__.validate_python(data, self_instance=self)
  File "/usr/lib/python3.12/json/decoder.py", line 355, in raw_decode
    raise JSONDecodeError("Expecting value", s, err.value) from None
settings.ConfigError: missing config
  hint: run \`app init\` first
`;

const PY_ONLY_LIBRARY = `Traceback (most recent call last):
  File "/usr/lib/python3.11/runpy.py", line 198, in _run_module_as_main
    return _run_code(code, main_globals, None,
  File "/usr/lib/python3.11/runpy.py", line 88, in _run_code
    exec(code, run_globals)
  File "/usr/local/lib/python3.11/site-packages/requests/api.py", line 73, in get
    return request("get", url, params=params, **kwargs)
  File "/usr/local/lib/python3.11/site-packages/requests/adapters.py", line 519, in send
    raise ConnectionError(e, request=request)
requests.exceptions.ConnectionError: HTTPSConnectionPool(host='x', port=443): Max retries exceeded
`;

const PY_SYNTAX = `Traceback (most recent call last):
  File "/app/run.py", line 3, in <module>
    import handlers
  File "/app/handlers.py", line 17
    def handle(event:
              ^
SyntaxError: '(' was never closed
`;

const NODE_TRACE = `/app/src/main.js:42
    const id = user.profile.id;
                            ^

TypeError: Cannot read properties of undefined (reading 'id')
    at Object.handler (/app/node_modules/express/lib/router/layer.js:95:5)
    at getUserId (/app/src/main.js:42:29)
    at processRequest (/app/src/server.js:17:10)
    at Layer.handle [as handle_request] (/app/node_modules/express/lib/router/layer.js:95:5)
    at next (/app/node_modules/express/lib/router/route.js:149:13)
    at Module._compile (node:internal/modules/cjs/loader:1376:14)
    at Module._extensions..js (node:internal/modules/cjs/loader:1435:10)
    at node:internal/main/run_main_module:28:49

Node.js v20.11.0
`;

const NODE_CAUSE = `Error: failed to start server
    at start (file:///srv/api/index.mjs:21:11)
    at async file:///srv/api/index.mjs:40:1 {
  [cause]: Error: connect ECONNREFUSED 127.0.0.1:5432
      at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1595:16)
      at Client._connectionCallback (/srv/api/node_modules/pg/lib/client.js:132:24)
      at connectDb (/srv/api/db/pool.mjs:8:9)
      at async start (file:///srv/api/index.mjs:18:5) {
    errno: -111,
    code: 'ECONNREFUSED',
    syscall: 'connect',
    address: '127.0.0.1',
    port: 5432
  }
}
`;

const NODE_INTERNAL_ONLY = `node:internal/modules/cjs/loader:1147
  throw err;
  ^

Error: Cannot find module '/app/dist/index.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1144:15)
    at Module._load (node:internal/modules/cjs/loader:985:27)
    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:135:12)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}
`;

const JAVA_NPE = `2024-06-01 12:00:03.114 ERROR 4242 --- [main] c.acme.Runner : startup failed
Exception in thread "main" java.lang.NullPointerException: Cannot invoke "String.length()" because "name" is null
\tat com.acme.billing.Invoice.label(Invoice.java:42)
\tat com.acme.billing.Runner.run(Runner.java:18)
\tat java.base/java.util.ArrayList.forEach(ArrayList.java:1596)
\tat com.acme.billing.Runner.main(Runner.java:9)
`;

const JAVA_CAUSED_BY = `Exception in thread "main" java.lang.IllegalStateException: Failed to initialise repository
\tat com.acme.orders.Repository.<init>(Repository.java:61)
\tat com.acme.orders.App.main(App.java:23)
Caused by: org.postgresql.util.PSQLException: Connection to db:5432 refused.
\tat org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:346)
\tat org.postgresql.Driver.connect(Driver.java:297)
\tat com.acme.orders.db.Pool.open(Pool.java:33)
\tat com.acme.orders.Repository.<init>(Repository.java:58)
\t... 1 more
\tSuppressed: java.lang.RuntimeException: close failed
\t\tat com.acme.orders.db.Pool.close(Pool.java:77)
\t\t... 3 more
Caused by: java.net.ConnectException: Connection refused
\tat java.base/sun.nio.ch.Net.connect0(Native Method)
\tat java.base/sun.nio.ch.Net.connect(Net.java:579)
\tat java.base/java.net.Socket.connect(Socket.java:633)
\tat org.postgresql.core.PGStream.createSocket(PGStream.java:243)
\t... 4 more
`;

describe("digestError: Python", () => {
  it("reports the exception with the innermost frame", () => {
    expect(digestError(PY_SIMPLE)).toBe("TimeoutError @ fetcher.py:31: request to https://api.internal/v1/items exceeded 5s");
  });

  it("reports the last chained exception and prefers frames outside site-packages and lib/python", () => {
    expect(digestError(PY_CHAINED)).toBe("settings.ConfigError @ settings.py:14: missing config");
  });

  it("falls back to the innermost library frame when no user frame exists", () => {
    expect(digestError(PY_ONLY_LIBRARY)).toMatch(/^requests\.exceptions\.ConnectionError @ adapters\.py:519: HTTPSConnectionPool/);
  });

  it("handles SyntaxError frames that have no function name", () => {
    expect(digestError(PY_SYNTAX)).toBe("SyntaxError @ handlers.py:17: '(' was never closed");
  });

  it("ignores terminal colour escapes and CRLF line ends", () => {
    const coloured = PY_SIMPLE.replace(/\n/g, "\r\n").replace("TimeoutError:", "\x1b[1;35mTimeoutError\x1b[0m:");
    expect(digestError(coloured)).toMatch(/^TimeoutError @ fetcher\.py:31: request/);
  });
});

describe("digestError: Node.js", () => {
  it("skips node_modules and node:internal frames in favour of the first user frame", () => {
    expect(digestError(NODE_TRACE)).toBe("TypeError @ main.js:42: Cannot read properties of undefined (reading 'id')");
  });

  it("reports the innermost [cause] and its user frame", () => {
    expect(digestError(NODE_CAUSE)).toBe("Error @ pool.mjs:8: connect ECONNREFUSED 127.0.0.1:5432");
  });

  it("uses an internal frame when nothing else is available", () => {
    expect(digestError(NODE_INTERNAL_ONLY)).toBe("Error @ loader:1144: Cannot find module '/app/dist/index.js'");
  });
});

describe("digestError: Java", () => {
  it("strips the thread prefix and package, and picks the first user frame", () => {
    expect(digestError(JAVA_NPE)).toBe('NullPointerException @ Invoice.java:42: Cannot invoke "String.length()" because "name" is null');
  });

  it("reports the root cause and walks outwards to the nearest user frame", () => {
    expect(digestError(JAVA_CAUSED_BY)).toBe("ConnectException @ Pool.java:33: Connection refused");
  });
});

describe("digestError: message handling", () => {
  it("truncates long messages to maxMessage", () => {
    const long = `Traceback (most recent call last):\n  File "a.py", line 1, in <module>\n    f()\nValueError: ${"x".repeat(500)}\n`;
    const out = digestError(long, 50);
    expect(out.startsWith("ValueError @ a.py:1: ")).toBe(true);
    expect(out.length).toBe("ValueError @ a.py:1: ".length + 50);
    expect(out.endsWith("…")).toBe(true);
  });

  it("returns the first non-empty line of unknown text, trimmed to maxMessage", () => {
    expect(digestError("\n\n   make: *** [build] Error 2   \nmore output")).toBe("make: *** [build] Error 2");
    expect(digestError(`${"y".repeat(30)}\n`, 10)).toBe(`${"y".repeat(9)}…`);
    expect(digestError("")).toBe("");
  });
});

describe("digestIfTrace", () => {
  it("digests traces", () => {
    expect(digestIfTrace(NODE_TRACE)).toMatch(/^TypeError @ main\.js:42/);
  });

  it("leaves short plain text untouched", () => {
    const text = "  exit code 1: permission denied  ";
    expect(digestIfTrace(text)).toBe(text);
  });

  it("cuts long plain text to its first line", () => {
    const text = `fatal: not a git repository\n${"noise line\n".repeat(100)}`;
    expect(digestIfTrace(text)).toBe("fatal: not a git repository");
  });
});
