-- What the wrk scripts of bench/ share: the keys and request bodies, "name=value" arguments that
-- override them, counters of statuses and named events, and a done() that prints one line:
-- "WRKJSON " and a JSON object of wrk's figures and the counters summed over wrk's threads.
--
-- wrk runs a script in one Lua state per wrk thread, and setup() and done() in another; the
-- counters are globals of the thread states, read at the end with thread:get().

local common = {}

common.key = "snd_default_secret_key"
common.profile = "pro_default"

local card = '{"card": {"card_number": "4242424242424242", "card_exp_month": "12", '
  .. '"card_exp_year": "2099", "card_cvc": "123"}}'
local billing = '{"address": {"line1": "1 Seed Street", "city": "San Francisco", "state": "CA", '
  .. '"zip": "94105", "country": "US", "first_name": "Seed", "last_name": "Payment"}, '
  .. '"phone": {"number": "4155550100", "country_code": "+1"}}'

-- A one-step card payment (bench.py passes its own CREATE, the same payment, as create=...).
common.create = '{"currency": "USD", "confirm": true, "payment_method": "card", '
  .. '"payment_method_type": "credit", "payment_method_data": ' .. card .. ', "billing": ' .. billing
  .. ', "amount": 1000, "profile_id": "pro_default"}'
-- The first step of a checkout: a payment created without a method, confirmed later.
common.create_later = '{"amount": 1000, "currency": "USD", "profile_id": "pro_default", "confirm": false}'
common.confirm = '{"payment_method": "card", "payment_method_type": "credit", "payment_method_data": '
  .. card .. ', "billing": ' .. billing .. '}'
common.list = '{"limit": 10}'

function common.parse_args(args)
  for _, arg in ipairs(args or {}) do
    local name, value = arg:match("^([%w_]+)=(.*)$")
    if name == nil then
      error("wrk script argument not of the form name=value: " .. arg)
    end
    common[name] = value
  end
  common.headers = { ["api-key"] = common.key, ["Content-Type"] = "application/json" }
end

common.parse_args({})

-- Counters of a thread state.
statuses = {}
counters = {}

function common.count_status(status)
  local name = tostring(status)
  statuses[name] = (statuses[name] or 0) + 1
end

function common.count(name)
  counters[name] = (counters[name] or 0) + 1
end

function common.payment_id(body)
  return body:match('"payment_id"%s*:%s*"([^"]+)"')
end

-- The first JSON key of a body: what kind of object answered.
function common.first_key(body)
  return body:match('^%s*{%s*"([^"]+)"')
end

local threads = {}

function common.setup(thread)
  table.insert(threads, thread)
end

local function object(entries)
  local names = {}
  for name in pairs(entries) do
    table.insert(names, name)
  end
  table.sort(names)
  local parts = {}
  for _, name in ipairs(names) do
    table.insert(parts, string.format('"%s": %d', name, entries[name]))
  end
  return "{" .. table.concat(parts, ", ") .. "}"
end

local function sum_into(total, part)
  for name, value in pairs(part or {}) do
    total[name] = (total[name] or 0) + value
  end
end

function common.done(summary, latency, requests)
  local all_statuses, all_counters = {}, {}
  for _, thread in ipairs(threads) do
    sum_into(all_statuses, thread:get("statuses"))
    sum_into(all_counters, thread:get("counters"))
  end
  local errors = summary.errors
  local figures = {
    requests = summary.requests,
    duration_us = summary.duration,
    bytes = summary.bytes,
    connect_errors = errors.connect,
    read_errors = errors.read,
    write_errors = errors.write,
    status_errors = errors.status,
    timeouts = errors.timeout,
    latency_mean_us = math.floor(latency.mean),
    latency_max_us = latency.max,
    latency_p50_us = latency:percentile(50),
    latency_p90_us = latency:percentile(90),
    latency_p99_us = latency:percentile(99),
  }
  io.write(string.format('WRKJSON {"figures": %s, "statuses": %s, "counters": %s}\n',
    object(figures), object(all_statuses), object(all_counters)))
end

return common
