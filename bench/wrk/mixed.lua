-- The soak's mixed load: one-step creates, retrieves of recent payments, lists, and now and then
-- a checkout (a payment created without a method, then confirmed, then refunded).
--   wrk -t1 -c16 -d30s -s bench/wrk/mixed.lua http://127.0.0.1:8080
-- Arguments after "--" (name=value): key, and the shares in percent of new requests:
-- create (default 40), retrieve (35), list (20); the rest start checkouts.
-- Counters: one per kind of request sent, and "checkouts" for each refund answered 200.

local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = here .. "?.lua;" .. package.path
local common = require("common")

setup = common.setup
done = common.done

local RECENT = 256
local recent = {}      -- payment ids of recent answers, a ring
local recent_next = 1
local queue = {}       -- next steps of checkouts, oldest first
local sent = {}        -- payment_id of a checkout -> the step last sent for it
local shares = {}
local create, list, start_checkout

function init(args)
  common.create_share = "40"
  common.retrieve_share = "35"
  common.list_share = "20"
  common.parse_args(args)
  shares.create = tonumber(common.create_share)
  shares.retrieve = shares.create + tonumber(common.retrieve_share)
  shares.list = shares.retrieve + tonumber(common.list_share)
  create = wrk.format("POST", "/payments", common.headers, common.create)
  list = wrk.format("POST", "/payments/list", common.headers, common.list)
  start_checkout = wrk.format("POST", "/payments", common.headers, common.create_later)
  math.randomseed(os.time())
end

local function remember(id)
  recent[recent_next] = id
  recent_next = recent_next % RECENT + 1
end

function request()
  local next_step = table.remove(queue, 1)
  if next_step ~= nil then
    sent[next_step.id] = next_step.step
    common.count(next_step.step)
    if next_step.step == "confirm" then
      return wrk.format("POST", "/payments/" .. next_step.id .. "/confirm", common.headers, common.confirm)
    end
    return wrk.format("POST", "/refunds", common.headers, '{"payment_id": "' .. next_step.id .. '"}')
  end
  local pick = math.random() * 100
  if pick < shares.retrieve and pick >= shares.create and #recent > 0 then
    common.count("retrieve")
    return wrk.format("GET", "/payments/" .. recent[math.random(#recent)], common.headers)
  elseif pick < shares.retrieve then  -- a create, or a retrieve before any payment is known
    common.count("create")
    return create
  elseif pick < shares.list then
    common.count("list")
    return list
  end
  common.count("checkout")
  return start_checkout
end

function response(status, headers, body)
  common.count_status(status)
  if common.first_key(body) ~= "payment_id" and common.first_key(body) ~= "refund_id" then
    return  -- a list, or an error
  end
  local id = common.payment_id(body)
  if id == nil then
    return
  end
  local step = sent[id]
  if status ~= 200 then
    sent[id] = nil
    return
  end
  if step == "confirm" then
    table.insert(queue, { id = id, step = "refund" })
  elseif step == "refund" then
    sent[id] = nil
    common.count("checkouts")
  elseif body:find('"status"%s*:%s*"requires_payment_method"') then
    table.insert(queue, { id = id, step = "confirm" })
  else
    remember(id)
  end
end
