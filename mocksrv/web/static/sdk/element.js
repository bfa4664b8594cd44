// The payment element, framed by HyperLoader.js (or by any page of the API's origin).
//
// It reads its keys and options from its URL's fragment, lists the methods the payment may be paid
// with, checks what the customer types, and confirms the payment with the publishable key. It
// tells the framing page what happens with postMessage (see the protocol in mocksrv/web/sdk.py's
// module docstring) and never writes data into the page as HTML.
(function () {
  "use strict";

  const hash = new URLSearchParams(location.hash.slice(1));
  const config = {
    publishableKey: hash.get("publishableKey") || "",
    clientSecret: hash.get("clientSecret") || "",
    elementId: hash.get("elementId") || "payment",
    parentOrigin: hash.get("parentOrigin") || location.origin,
  };
  // The keys stay out of the frame's history once read.
  history.replaceState(null, "", location.pathname);

  const options = {layout: "tabs", allowed: [], showSaved: true};
  applyOptions({
    layout: hash.get("layout"),
    allowedPaymentMethodTypes: (hash.get("allowedPaymentMethodTypes") || "").split(",").filter(Boolean),
    displaySavedPaymentMethods: hash.get("displaySavedPaymentMethods") !== "false",
  });

  // The redirect methods the element offers: method, name, and the method data it sends.
  const REDIRECTS = {
    klarna: ["pay_later", "Klarna", {klarna_redirect: {}}],
    affirm: ["pay_later", "Affirm", {affirm_redirect: {}}],
    afterpay_clearpay: ["pay_later", "Afterpay / Clearpay", {afterpay_clearpay_redirect: {}}],
    ideal: ["bank_redirect", "iDEAL", {ideal: {}}],
    eps: ["bank_redirect", "EPS", {eps: {}}],
    giropay: ["bank_redirect", "giropay", {giropay: {}}],
    sofort: ["bank_redirect", "Sofort", {sofort: {}}],
    przelewy24: ["bank_redirect", "Przelewy24", {przelewy24: {}}],
    paypal: ["wallet", "PayPal", {paypal_redirect: {}}],
  };
  // Card brands by number prefix: name shown, API name, lengths, CVC length.
  const BRANDS = [
    ["American Express", "AmericanExpress", /^3[47]/, [15], 4],
    ["Diners Club", "DinersClub", /^3(0[0-5]|[689])/, [14, 16], 3],
    ["JCB", "JCB", /^35(2[89]|[3-8][0-9])/, [16], 3],
    ["Discover", "Discover", /^(6011|65|64[4-9])/, [16], 3],
    ["UnionPay", "UnionPay", /^62/, [16, 17, 18, 19], 3],
    ["Mastercard", "Mastercard", /^(5[1-5]|222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)/, [16], 3],
    ["Visa", "Visa", /^4/, [13, 16, 19], 3],
  ];
  const UNKNOWN_BRAND = ["", "", null, [16], 3];
  const PAYABLE = ["requires_payment_method", "requires_confirmation"];
  const NO_METHOD = "No payment method can be used for this payment here.";
  const CLOSED = {
    succeeded: "This payment has already been paid.",
    requires_capture: "This payment has already been authorized.",
    partially_captured: "This payment has already been paid.",
    processing: "This payment is being processed.",
    failed: "This payment has failed and can no longer be paid.",
    cancelled: "This payment was cancelled.",
    requires_customer_action: "This payment is waiting for the customer to authorize it.",
    requires_merchant_action: "This payment is being reviewed by the shop.",
  };
  // What the element says once a confirmation has moved the payment on, by its status.
  const DONE = {
    succeeded: "Payment complete.",
    requires_capture: "Payment authorized.",
    processing: "Payment processing: the shop is told when it arrives.",
    requires_merchant_action: "Payment received: the shop is reviewing it.",
  };
  const BILLING_FIELDS = ["first-name", "last-name", "line1", "line2", "city", "state", "zip", "country",
    "phone-code", "phone"];

  const form = document.getElementById("element");
  const $ = (id) => document.getElementById(id);
  const state = {
    payment: null, // the payment, when it loaded
    loadError: null, // {type, message} of the API when the element could not load
    payable: false,
    enabled: [], // {type, label} of every method the payment may use here (a card: and its cardTypes)
    saved: [], // the customer's saved cards
    methods: [], // what is listed, after the options' filter
    selected: null,
    touched: new Set(),
  };

  function applyOptions(given) {
    const layout = given.layout && typeof given.layout === "object" ? given.layout.type : given.layout;
    if (layout === "tabs" || layout === "accordion") options.layout = layout;
    if (Array.isArray(given.allowedPaymentMethodTypes)) options.allowed = given.allowedPaymentMethodTypes;
    if (typeof given.displaySavedPaymentMethods === "boolean") options.showSaved = given.displaySavedPaymentMethods;
  }

  // -- talking to the framing page and to the API ------------------------------------------------

  function post(event, fields) {
    const target = config.parentOrigin === "null" ? "*" : config.parentOrigin;
    if (window.parent !== window) {
      window.parent.postMessage({source: "hyper-element", elementId: config.elementId, event, ...fields}, target);
    } else if (event === "openUrl") {
      location.assign(fields.url); // opened on its own, it is the top window
    }
  }

  let confirming = null; // the confirmation in flight, if any

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent || !event.data || event.data.source !== "hyper-loader") return;
    if (config.parentOrigin !== "null" && event.origin !== config.parentOrigin) return;
    const message = event.data;
    if (message.action === "submit") {
      // A submit while one is in flight (a double click on Pay) gets that one's answer: one confirm.
      if (!confirming) {
        confirming = submit(message)
          .catch(() => failure("server_error", "Something went wrong")) // the shop still hears back
          .finally(() => (confirming = null));
      }
      confirming.then((answer) => post("result", {...answer, requestId: message.requestId}));
    }
    if (message.action === "update") {
      applyOptions(message.options || {});
      render();
      sendChange(); // the methods offered may have changed
    }
    if (message.action === "reload") load();
  });

  async function api(method, path, body) {
    try {
      const response = await fetch(path, {
        method,
        headers: {"api-key": config.publishableKey, "Content-Type": "application/json"},
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = await response.json();
      return response.ok ? {ok: true, body: json} : {ok: false, error: json.error || {}};
    } catch (problem) {
      return {ok: false, error: {type: "server_error", message: "Something went wrong"}};
    }
  }

  function paymentId() {
    // All before the last "_secret_": a payment id may hold one too.
    const secret = config.clientSecret;
    const at = secret.lastIndexOf("_secret_");
    return at < 0 ? secret : secret.slice(0, at);
  }

  function withSecret(path) {
    return `${path}?client_secret=${encodeURIComponent(config.clientSecret)}`;
  }

  // -- loading -----------------------------------------------------------------------------------

  async function load() {
    form.setAttribute("aria-busy", "true");
    state.loadError = null;
    if (!config.clientSecret) {
      state.loadError = {type: "invalid_request", message: "Missing required param: client_secret"};
    } else {
      const [payment, listed, saved] = await Promise.all([
        api("GET", withSecret(`/payments/${encodeURIComponent(paymentId())}`)),
        api("GET", withSecret("/account/payment_methods")),
        api("GET", withSecret("/customers/payment_methods")),
      ]);
      const failed = [payment, listed, saved].find((answer) => !answer.ok);
      if (failed) {
        state.loadError = failed.error;
      } else {
        state.payment = payment.body;
        state.enabled = enabledMethods(listed.body.payment_methods || []);
        state.saved = (saved.body.customer_payment_methods || []).filter((method) => method.card);
      }
    }
    state.payable = !state.loadError && PAYABLE.includes(state.payment.status);
    render();
    form.setAttribute("aria-busy", "false");
    post("ready", {});
    sendChange();
  }

  // The methods the payment may use here: one Card for its card types (credit, debit), in the
  // order the API lists them, and each redirect method it allows.
  function enabledMethods(listed) {
    const found = [];
    for (const entry of listed) {
      for (const kind of entry.payment_method_types || []) {
        const type = kind.payment_method_type;
        if (entry.payment_method === "card") {
          let card = found.find((method) => method.type === "card");
          if (!card) found.push((card = {type: "card", label: "Card", cardTypes: []}));
          card.cardTypes.push(type);
        } else if (REDIRECTS[type] && REDIRECTS[type][0] === entry.payment_method) {
          found.push({type, label: REDIRECTS[type][1]});
        }
      }
    }
    return found;
  }

  // A method as the options let the element offer it, or null: a card is paid as the first card type
  // of the payment's that `allowedPaymentMethodTypes` names (any of them for "card" or no option), so
  // an option of ["debit"] pays a debit card, and one naming no type the payment allows offers no card.
  function offered(method) {
    const allows = (type) => !options.allowed.length || options.allowed.includes(type);
    if (method.type !== "card") return allows(method.type) ? method : null;
    const cardType = method.cardTypes.find((type) => allows(type) || allows("card"));
    return cardType ? {...method, cardType} : null;
  }

  function loadProblem() {
    const error = state.loadError;
    if (!error) return CLOSED[state.payment.status] || `This payment cannot be paid (${state.payment.status}).`;
    if (error.code === "IR_01") return "This checkout cannot take payments: the shop's key was not accepted.";
    if (secretExpired(error)) return "This checkout has expired: start again from the shop.";
    if (["IR_05", "IR_09", "IR_08"].includes(error.code) || !config.clientSecret) {
      return "This checkout cannot take payments: the payment was not found.";
    }
    return `The payment form could not be loaded: ${error.message || "something went wrong"}.`;
  }

  // -- rendering ---------------------------------------------------------------------------------

  function render() {
    $("loading").hidden = true;
    const notice = $("notice");
    notice.hidden = state.payable;
    notice.textContent = state.payable ? "" : loadProblem();
    state.methods = state.payable ? state.enabled.map(offered).filter(Boolean) : [];
    const cards = state.methods.some((method) => method.type === "card");
    if (cards && options.showSaved && state.saved.length) {
      state.methods.unshift({type: "saved", label: "Saved cards"});
    }
    if (!state.methods.some((method) => method.type === state.selected)) {
      state.selected = state.methods.length ? state.methods[0].type : null;
    }
    if (state.payable && !state.methods.length) {
      notice.hidden = false;
      notice.textContent = NO_METHOD;
    }
    renderSaved();
    renderMethods();
  }

  function renderMethods() {
    const tabs = options.layout === "tabs";
    form.className = `layout-${options.layout}`;
    const list = $("methods");
    const slot = $("slot");
    list.replaceChildren();
    list.setAttribute("role", tabs ? "tablist" : "group");
    list.after(slot);
    for (const method of state.methods) {
      const active = method.type === state.selected;
      const button = Object.assign(document.createElement("button"), {
        type: "button", className: "method", id: `method-${method.type}`, textContent: method.label,
      });
      button.setAttribute("aria-controls", "slot");
      button.setAttribute(tabs ? "aria-selected" : "aria-expanded", String(active));
      if (tabs) {
        // One Tab stop for the whole list, the selected tab; the arrow keys, Home and End move along it.
        button.setAttribute("role", "tab");
        button.tabIndex = active ? 0 : -1;
        button.addEventListener("keydown", (event) => moveAlongTabs(event, method.type));
      }
      button.addEventListener("click", () => select(method.type));
      list.append(button);
      if (!tabs && active) list.append(slot);
    }
    slot.setAttribute("role", tabs ? "tabpanel" : "region");
    slot.hidden = !state.selected;
    const type = state.selected;
    $("panel-saved").hidden = type !== "saved";
    $("panel-card").hidden = type !== "card";
    $("panel-redirect").hidden = !REDIRECTS[type];
    if (REDIRECTS[type]) {
      $("redirect-note").textContent = `You will be sent to ${REDIRECTS[type][1]} to finish the payment.`;
    }
    $("billing").hidden = !billingNeeded();
  }

  const TAB_KEYS = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1};

  function moveAlongTabs(event, type) {
    if (event.altKey || event.ctrlKey || event.metaKey) return; // the browser's own (Alt+Left: Back)
    const types = state.methods.map((method) => method.type);
    const at = types.indexOf(type);
    let to;
    if (event.key in TAB_KEYS) to = (at + TAB_KEYS[event.key] + types.length) % types.length;
    else if (event.key === "Home") to = 0;
    else if (event.key === "End") to = types.length - 1;
    else return;
    event.preventDefault();
    select(types[to]);
    $(`method-${types[to]}`).focus();
  }

  function renderSaved() {
    const list = $("saved-list");
    list.replaceChildren();
    state.saved.forEach((method, index) => {
      const card = method.card;
      const label = Object.assign(document.createElement("label"), {className: "choice"});
      const radio = Object.assign(document.createElement("input"), {
        type: "radio", name: "saved-card", value: method.payment_token, checked: index === 0,
      });
      const expiry = `${card.expiry_month || "??"}/${card.expiry_year || "??"}`;
      const brand = BRANDS.find((known) => known[1] === card.scheme);
      label.append(radio, `${brand ? brand[0] : card.scheme || "Card"} ending in ${card.last4_digits} (expires ${expiry})`);
      list.append(label);
    });
  }

  function select(type) {
    state.selected = type;
    renderMethods();
    sendChange();
  }

  function billingNeeded() {
    return state.selected !== null && state.selected !== "saved" && !paymentBilling();
  }

  // The payment's own billing, when it has every part the API requires, in the shape it takes.
  function paymentBilling() {
    const billing = state.payment && state.payment.billing;
    const address = (billing && billing.address) || {};
    const phone = (billing && billing.phone) || {};
    const required = ["line1", "city", "state", "zip", "country", "first_name", "last_name"];
    if (!required.every((key) => address[key]) || !phone.number || !phone.country_code) return null;
    const copy = {};
    for (const key of [...required, "line2"]) if (address[key]) copy[key] = address[key];
    return {address: copy, phone: {number: phone.number, country_code: phone.country_code}};
  }

  // -- checking what is typed --------------------------------------------------------------------

  const digits = (value) => value.replace(/\D/g, "");

  function brandOf(number) {
    return BRANDS.find((brand) => brand[2].test(number)) || UNKNOWN_BRAND;
  }

  function luhn(number) {
    let sum = 0;
    for (let i = 0; i < number.length; i++) {
      let digit = Number(number[number.length - 1 - i]);
      if (i % 2) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
      sum += digit;
    }
    return sum % 10 === 0;
  }

  function expiryOf(value) {
    const d = digits(value);
    const year = d.length === 4 ? 2000 + Number(d.slice(2)) : Number(d.slice(2));
    return {month: Number(d.slice(0, 2)), year, complete: d.length === 4 || d.length === 6, typed: d};
  }

  function cvcProblem(value, length, final) {
    const d = digits(value);
    if (!d) return final ? "CVC is required." : "";
    if (d.length > length) return "CVC is invalid.";
    return d.length < length && final ? "CVC is incomplete." : "";
  }

  // Each check answers the problem to show, or "": while typing (final false) only what is wrong
  // already; on leaving the field or paying (final true) also what is missing.
  const CHECKS = {
    "card-number": (value, final) => {
      const number = digits(value);
      const lengths = brandOf(number)[3];
      if (!number) return final ? "Card number is required." : "";
      const longest = Math.max(...lengths);
      // While typing, the checksum is checked once the number may be whole.
      const whole = final || number.length === longest || (number.length >= 16 && lengths.includes(number.length));
      if (number.length > longest || (whole && !luhn(number))) {
        return "Card number is invalid.";
      }
      return final && !lengths.includes(number.length) ? "Card number is incomplete." : "";
    },
    "card-exp": (value, final) => {
      const expiry = expiryOf(value);
      if (!expiry.typed) return final ? "Expiry date is required." : "";
      if (expiry.typed.length >= 2 && (expiry.month < 1 || expiry.month > 12)) return "Expiry date is invalid.";
      if (!expiry.complete) return final ? "Expiry date is incomplete." : "";
      const now = new Date();
      const thisMonth = now.getFullYear() * 12 + now.getMonth() + 1;
      return expiry.year * 12 + expiry.month < thisMonth ? "Your card has expired." : "";
    },
    "card-cvc": (value, final) => cvcProblem(value, brandOf(digits($("card-number").value))[4], final),
    "saved-cvc": (value, final) => cvcProblem(value, savedCard() && savedCard().card.scheme === "AmericanExpress" ? 4 : 3, final),
    "card-name": () => "",
    "line2": () => "",
    "phone-code": (value, final) => {
      if (!value.trim()) return final ? "Phone code is required." : "";
      return final && !/^\+[0-9]{1,4}$/.test(value.trim()) ? "Phone code is a + and 1 to 4 digits." : "";
    },
    "phone": (value, final) => {
      if (!value.trim()) return final ? "Phone number is required." : "";
      return final && !/^[0-9 ()-]{4,20}$/.test(value.trim()) ? "Phone number is 4 to 20 digits." : "";
    },
  };

  function labelOf(id) {
    return form.querySelector(`label[for="${id}"]`).firstChild.textContent.trim();
  }

  function problemOf(id, final) {
    const check = CHECKS[id];
    const value = $(id).value;
    if (check) return check(value, final);
    return !value.trim() && final ? `${labelOf(id)} is required.` : "";
  }

  function activeFields() {
    const fields = [];
    if (state.selected === "card") fields.push("card-number", "card-exp", "card-cvc", "card-name");
    if (state.selected === "saved") fields.push("saved-cvc");
    if (billingNeeded()) fields.push(...BILLING_FIELDS);
    return fields;
  }

  function show(id, problem) {
    const input = $(id);
    $(`${id}-error`).textContent = problem;
    input.setAttribute("aria-invalid", String(Boolean(problem)));
    input.setAttribute("aria-describedby", `${id}-error`);
  }

  function savedCard() {
    const chosen = form.querySelector('input[name="saved-card"]:checked');
    return chosen ? state.saved.find((method) => method.payment_token === chosen.value) : null;
  }

  function formatNumber(input) {
    const number = digits(input.value).slice(0, 19);
    const brand = brandOf(number);
    const groups = brand[1] === "AmericanExpress" ? [4, 6, 5] : [4, 4, 4, 4, 3];
    const parts = [];
    let at = 0;
    for (const size of groups) {
      if (at < number.length) parts.push(number.slice(at, at + size));
      at += size;
    }
    input.value = parts.join(" ");
    const badge = $("card-brand");
    badge.hidden = !brand[0];
    badge.textContent = brand[0];
    badge.dataset.brand = brand[1];
  }

  function formatExpiry(input) {
    const d = digits(input.value).slice(0, 6);
    input.value = d.length > 2 ? `${d.slice(0, 2)} / ${d.slice(2)}` : d;
  }

  form.addEventListener("input", (event) => {
    const id = event.target.id;
    if (id === "card-number") formatNumber(event.target);
    if (id === "card-exp") formatExpiry(event.target);
    if (CHECKS[id] || BILLING_FIELDS.includes(id)) show(id, problemOf(id, state.touched.has(id)));
    if (id === "card-number" && $("card-cvc").value) show("card-cvc", problemOf("card-cvc", true));
    $("status").hidden = true;
    sendChange();
  });
  form.addEventListener("change", sendChange);
  form.addEventListener("focusout", (event) => {
    const id = event.target.id;
    if (activeFields().includes(id) && event.target.value) {
      state.touched.add(id);
      show(id, problemOf(id, true));
    }
    if (!form.contains(event.relatedTarget)) post("blur", {});
  });
  form.addEventListener("focusin", (event) => {
    if (!form.contains(event.relatedTarget)) post("focus", {});
  });
  form.addEventListener("submit", (event) => event.preventDefault());

  function sendChange() {
    const fields = activeFields();
    const complete = Boolean(state.selected) && fields.every((id) => !problemOf(id, true)) &&
      (state.selected !== "saved" || Boolean(savedCard()));
    const typed = fields.filter((id) => $(id).tagName === "INPUT" && id !== "phone-code");
    const empty = typed.every((id) => !$(id).value.trim());
    const type = state.selected === "saved" ? "card" : state.selected;
    post("change", {complete, empty, value: {type}});
  }

  new ResizeObserver(() => post("height", {height: Math.ceil(form.getBoundingClientRect().height)})).observe(form);

  // -- paying ------------------------------------------------------------------------------------

  function failure(type, message) {
    return {ok: false, error: {type: type || "server_error", message: message || "Something went wrong"}};
  }

  function validate() {
    if (!state.selected) return failure("validation_error", NO_METHOD);
    const problems = activeFields().map((id) => {
      const problem = problemOf(id, true);
      show(id, problem);
      return [id, problem];
    }).filter((entry) => entry[1]);
    if (!problems.length) return null;
    $(problems[0][0]).focus();
    const missing = problems.some(([id]) => !$(id).value.trim());
    return failure("validation_error", missing ? "Please enter all fields" : "Please enter valid details");
  }

  function requestBody(returnUrl) {
    const body = {client_secret: config.clientSecret};
    if (returnUrl) body.return_url = returnUrl;
    const type = state.selected;
    if (type === "saved") {
      return {...body, payment_token: savedCard().payment_token, card_cvc: digits($("saved-cvc").value)};
    }
    body.billing = paymentBilling() || typedBilling();
    if (type === "card") {
      const expiry = expiryOf($("card-exp").value);
      const card = {
        card_number: digits($("card-number").value),
        card_exp_month: String(expiry.month).padStart(2, "0"),
        card_exp_year: String(expiry.year),
        card_cvc: digits($("card-cvc").value),
      };
      if ($("card-name").value.trim()) card.card_holder_name = $("card-name").value.trim();
      const method = state.methods.find((m) => m.type === "card");
      return {...body, payment_method: "card", payment_method_type: method.cardType, payment_method_data: {card}};
    }
    const [kind, , data] = REDIRECTS[type];
    return {...body, payment_method: kind, payment_method_type: type, payment_method_data: {[kind]: data}};
  }

  function typedBilling() {
    const value = (id) => $(id).value.trim();
    const address = {
      first_name: value("first-name"), last_name: value("last-name"), line1: value("line1"),
      city: value("city"), state: value("state"), zip: value("zip"), country: value("country"),
    };
    if (value("line2")) address.line2 = value("line2");
    return {address, phone: {number: value("phone"), country_code: value("phone-code")}};
  }

  // Where the shop's page goes after a payment ends, as the real SDK builds it.
  function returnUrlWith(returnUrl, status) {
    if (!returnUrl) return null;
    try {
      const url = new URL(returnUrl);
      url.searchParams.set("payment_intent_client_secret", config.clientSecret);
      url.searchParams.set("payment_id", paymentId());
      url.searchParams.set("status", status);
      return url.href;
    } catch (problem) {
      return null;
    }
  }

  async function submit(message) {
    const requestId = message.requestId;
    const returnUrl = (message.confirmParams && message.confirmParams.return_url) ||
      (state.payment && state.payment.return_url) || "";
    if (!config.clientSecret) return {requestId, ...failure(state.loadError.type, state.loadError.message)};
    let body = {client_secret: config.clientSecret};
    if (state.payable) {
      const invalid = validate();
      if (invalid) return {requestId, ...invalid};
      body = requestBody(returnUrl);
    }
    // Otherwise the API is asked all the same: its refusal says why, in its own words.
    if (state.payable) $("notice").hidden = true;
    setBusy(true);
    const answer = await api("POST", `/payments/${encodeURIComponent(paymentId())}/confirm`, body);
    setBusy(false);
    if (!answer.ok) {
      if (state.payable) await explainRefusal(answer.error);
      return {requestId, ...failure(answer.error.type, answer.error.message)};
    }
    const payment = answer.body;
    state.payment = payment;
    const next = payment.next_action;
    if (payment.status === "requires_customer_action" && next && next.type === "redirect_to_url") {
      post("openUrl", {url: next.redirect_to_url});
      return {requestId, ok: true, pending: true, data: payment};
    }
    state.payable = PAYABLE.includes(payment.status);
    setBusy(!state.payable); // a payment that ended takes no more input
    if (payment.status === "failed") {
      showNotice(payment.error_message || "The payment failed.");
    } else {
      const status = $("status");
      status.hidden = false;
      status.textContent = DONE[payment.status] || `Payment ${payment.status.replace(/_/g, " ")}.`;
    }
    return {requestId, ok: true, data: payment, url: returnUrlWith(returnUrl, payment.status)};
  }

  // A refused confirmation told to the customer in a plain sentence (the API's own words go to the
  // shop's page): an expired checkout takes no more input, and a payment that moved on meanwhile
  // (paid in another tab) is shown as it now stands.
  async function explainRefusal(error) {
    if (secretExpired(error)) {
      state.loadError = error;
    } else if (error.code === "IR_14") {
      const fresh = await api("GET", withSecret(`/payments/${encodeURIComponent(paymentId())}`));
      if (!fresh.ok) return showNotice(error.message || "Something went wrong");
      state.payment = fresh.body;
    } else {
      showNotice(error.message || "Something went wrong");
      return;
    }
    state.payable = !state.loadError && PAYABLE.includes(state.payment.status);
    render();
    setBusy(!state.payable);
  }

  function secretExpired(error) {
    return error.code === "IR_08" && /expired/i.test(error.message || "");
  }

  function showNotice(text) {
    const notice = $("notice");
    notice.hidden = false;
    notice.textContent = text;
  }

  function setBusy(busy) {
    form.setAttribute("aria-busy", String(busy));
    for (const control of form.querySelectorAll("input, select, button")) control.disabled = busy;
  }

  load();
})();
