-- One-step card payments, POST /payments, again and again on every connection.
--   wrk -t1 -c8 -d5s -s bench/wrk/create.lua http://127.0.0.1:8080
-- Arguments after "--" (name=value): key, create (the body).

local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = here .. "?.lua;" .. package.path
local common = require("common")

setup = common.setup
done = common.done

local prepared

function init(args)
  common.parse_args(args)
  prepared = wrk.format("POST", "/payments", common.headers, common.create)
end

function request()
  return prepared
end

function response(status, headers, body)
  common.count_status(status)
end
