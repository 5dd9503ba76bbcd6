'use strict';
module.exports = function loadConfig(env) {
  return { port: Number(env.PORT || 3000), db: env.DATABASE_URL ? { url: env.DATABASE_URL } : undefined };
};
