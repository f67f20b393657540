/**
 * jest's module runtime, with one change: a package from node_modules (or the generated Prisma clients, packages
 * too) loads once per jest worker, with Node's own require, instead of once per test file inside jest's registry.
 * Our code and each test file still load afresh for every file, so every file starts its own servers from a clean
 * slate; what the files of one worker share is the libraries' code, as a deployment's processes share their
 * installed packages. A worker runs tens of files: each one no longer loads some 1,900 modules again, and the
 * libraries' code stays compiled and optimized from one file to the next.
 *
 * Inside jest.isolateModules (test/gateway/graphqlProduction.test.ts loads graphql afresh that way) and through
 * jest.requireActual, packages load into jest's registry as before.
 */
const types = require('node:util/types');
const Runtime = require('jest-runtime').default;

// graphql-js picks its mode once, when it loads: here that is once per worker, so it loads now in production mode,
// as every entry point of the server loads it (shared/graphqlProduction.ts, also each test file's setup file).
require('tsx/cjs/api').require('../../shared/graphqlProduction.ts', __filename);

/**
 * A test file runs in a realm of its own (a vm context), and the packages now in the worker's: each built-in class
 * exists twice. An error our code makes reaches a package that asks `instanceof Error` (undici, graphql-js), a
 * promise our code returns reaches one that asks `instanceof Promise` (prom-client), and a package's values reach
 * our code asking the same. So, in both realms, `instanceof` one of these classes answers for what is one in any
 * realm, as node:util's types checks do; `instanceof` a subclass (TypeError, a class of ours) is left as it is.
 */
const BUILT_INS = {
  Error: types.isNativeError,
  Promise: types.isPromise,
  Date: types.isDate,
  RegExp: types.isRegExp,
  Map: types.isMap,
  Set: types.isSet,
  Array: Array.isArray,
};

function ofEveryRealm(global) {
  const ordinary = Function.prototype[Symbol.hasInstance];
  for (const [name, isKind] of Object.entries(BUILT_INS)) {
    const BuiltIn = global[name];
    Object.defineProperty(BuiltIn, Symbol.hasInstance, {
      value(value) {
        return (this === BuiltIn && isKind(value)) || ordinary.call(this, value);
      },
    });
  }
}
ofEveryRealm(globalThis);

const GENERATED_PRISMA_CLIENTS = `${require('node:path').resolve(__dirname, '../../shared/db/generated')}/`;

class NodeModulesOnceRuntime extends Runtime {
  constructor(config, environment, ...rest) {
    super(config, environment, ...rest);
    ofEveryRealm(environment.global);
  }

  requireModuleOrMock(from, moduleName) {
    if (!this._isolatedModuleRegistry && moduleName !== '@jest/globals' && !this._resolver.isCoreModule(moduleName)) {
      const path = this._resolveCjsModule(from, moduleName);
      if (path.includes('/node_modules/') || path.startsWith(GENERATED_PRISMA_CLIENTS)) return require(path);
    }
    return super.requireModuleOrMock(from, moduleName);
  }
}

module.exports = NodeModulesOnceRuntime;
