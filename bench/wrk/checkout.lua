-- Checkout flows: create a payment without a method (confirm false), confirm it with a card,
-- retrieve it, refund it in full. A flow is counted ("flows") when its refund answers 200.
--   wrk -t1 -c8 -d5s -s bench/wrk/checkout.lua http://127.0.0.1:8080
-- Arguments after "--" (name=value): key, create_later, confirm (the bodies).
--
-- wrk tells response() nothing of the connection or request it answers, so the flows of a wrk
-- thread share one queue of next steps: an answer puts its flow's next step on the queue, and
-- the next connection ready to send takes the oldest step, or starts a new flow if none waits.
-- A payment has one request in flight at a time, so the step last sent for the payment_id in an
-- answer tells which step it answers.

local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = here .. "?.lua;" .. package.path
local common = require("common")

setup = common.setup
done = common.done

local queue = {}       -- next steps, oldest first: {id = payment_id, step = name}
local sent = {}        -- payment_id -> the step last sent for it
local start_flow

function init(args)
  common.parse_args(args)
  start_flow = wrk.format("POST", "/payments", common.headers, common.create_later)
end

local function format(id, step)
  if step == "confirm" then
    return wrk.format("POST", "/payments/" .. id .. "/confirm", common.headers, common.confirm)
  elseif step == "retrieve" then
    return wrk.format("GET", "/payments/" .. id, common.headers)
  end
  return wrk.format("POST", "/refunds", common.headers, '{"payment_id": "' .. id .. '"}')
end

local following = { confirm = "retrieve", retrieve = "refund" }

function request()
  local next_step = table.remove(queue, 1)
  if next_step == nil then
    common.count("started")
    return start_flow
  end
  sent[next_step.id] = next_step.step
  return format(next_step.id, next_step.step)
end

function response(status, headers, body)
  common.count_status(status)
  local id = common.payment_id(body)
  if id == nil then
    common.count("lost")  -- an error answer that names no payment: its flow ends here
    return
  end
  local step = sent[id]
  if status ~= 200 then
    sent[id] = nil
    common.count("lost")
    return
  end
  if step == nil then
    table.insert(queue, { id = id, step = "confirm" })
  elseif step == "refund" then
    sent[id] = nil
    common.count("flows")
  else
    table.insert(queue, { id = id, step = following[step] })
  end
end
