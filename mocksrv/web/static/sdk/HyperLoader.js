// HyperLoader.js as mocksrv serves it: the real SDK's vanilla-JS surface, for a sandbox.
//
//   const hyper = Hyper("pk_snd_...");
//   const widgets = hyper.widgets({clientSecret});
//   widgets.create("payment", {layout: "tabs"}).mount("#unified-checkout");
//   const {error, status} = await hyper.confirmPayment({widgets, confirmParams: {return_url}, redirect: "if_required"});
//
// The API is the origin this script was loaded from. The payment element is an iframe of that
// origin (/web/<version>/v1/element); this script and the element talk with postMessage only.
// Every method of the instance is a closure, so it may be called detached from the instance.
(function () {
  "use strict";

  const script = document.currentScript ||
    Array.from(document.scripts).reverse().find((s) => /\/HyperLoader\.js(\?|#|$)/.test(s.src));
  const scriptUrl = new URL(script.src, location.href);
  const apiOrigin = scriptUrl.origin;
  const elementPage = new URL("element", scriptUrl).href;
  const elements = []; // every mounted payment element of every instance on this page
  let counter = 0;

  window.addEventListener("message", (event) => {
    if (event.origin !== apiOrigin || !event.data || event.data.source !== "hyper-element") return;
    const element = elements.find((e) => e.frame() && e.frame().contentWindow === event.source);
    if (element) element.receive(event.data);
  });

  // How long a confirmation waits for its element to load (an element that cannot load, say on a
  // page whose origin it cannot answer, would otherwise leave the shop's Pay button waiting for ever).
  const READY_WAIT_MS = 15000;

  function failure(type, message) {
    return {error: {type, message}};
  }

  function delay(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  // The origin the element answers: "null" for a page of no origin of its own, a file:// page
  // included, whose messages arrive from "null" though Chromium names its location's "file://".
  function pageOrigin() {
    return location.protocol === "file:" || location.origin === "null" ? "null" : location.origin;
  }

  // Send the whole page to `url`: a redirect method, 3D Secure, or the return_url at the end.
  function navigateTop(url) {
    if (!/^https?:/i.test(url)) return;
    try {
      window.top.location.assign(url);
    } catch (crossOrigin) {
      window.location.assign(url);
    }
  }

  function paymentIdOf(clientSecret) {
    // All before the last "_secret_": a payment id may hold one too.
    const secret = String(clientSecret || "");
    const at = secret.lastIndexOf("_secret_");
    return at < 0 ? secret : secret.slice(0, at);
  }

  // -- the payment element -----------------------------------------------------------------------

  function createPaymentElement(group, elementOptions) {
    let options = {...elementOptions};
    let frame = null;
    let markReady = null;
    let ready = null;
    const handlers = {};
    const waiting = new Map(); // requestId -> {resolve, redirect}
    const elementId = `hyper-payment-${++counter}`;

    function fire(name, payload) {
      if (typeof handlers[name] === "function") handlers[name]({elementType: "payment", ...payload});
    }

    function send(message) {
      if (frame && frame.contentWindow) frame.contentWindow.postMessage({source: "hyper-loader", ...message}, apiOrigin);
    }

    // Until the element has loaded, its frame holds a blank page that takes no message: what is
    // sent before then waits for it (an element not mounted reads its options when it is).
    function sendWhenReady(message) {
      if (frame) ready.then(() => send(message));
    }

    function elementOptionsForFrame() {
      const layout = options.layout && typeof options.layout === "object" ? options.layout.type : options.layout;
      const allowed = options.allowedPaymentMethodTypes || options.allowed_payment_method_types;
      return {
        layout: layout || "tabs",
        allowedPaymentMethodTypes: Array.isArray(allowed) ? allowed : [],
        displaySavedPaymentMethods: options.displaySavedPaymentMethods !== false,
      };
    }

    const element = {
      mount(target) {
        const container = typeof target === "string" ? document.querySelector(target) : target;
        if (!container) {
          console.error(`Hyper: nothing on the page matches ${target}; the payment element is not mounted`);
          return;
        }
        element.unmount();
        const frameOptions = elementOptionsForFrame();
        const fragment = new URLSearchParams({
          publishableKey: group.publishableKey,
          clientSecret: group.options.clientSecret || "",
          elementId,
          parentOrigin: pageOrigin(),
          layout: frameOptions.layout,
          allowedPaymentMethodTypes: frameOptions.allowedPaymentMethodTypes.join(","),
          displaySavedPaymentMethods: String(frameOptions.displaySavedPaymentMethods),
        });
        frame = document.createElement("iframe");
        frame.src = `${elementPage}#${fragment}`;
        frame.title = "Payment details";
        frame.name = elementId;
        frame.setAttribute("allow", "payment");
        frame.style.cssText = "display:block;width:100%;min-width:0;height:60px;border:0;overflow:hidden;";
        ready = new Promise((resolve) => (markReady = resolve));
        container.appendChild(frame);
        elements.push(element);
      },
      unmount() {
        if (frame) frame.remove();
        frame = null;
        const index = elements.indexOf(element);
        if (index >= 0) elements.splice(index, 1);
      },
      destroy() {
        element.unmount();
        for (const name of Object.keys(handlers)) delete handlers[name];
      },
      update(newOptions) {
        options = {...options, ...newOptions};
        sendWhenReady({action: "update", options: elementOptionsForFrame()});
      },
      on(name, handler) {
        handlers[name] = handler;
      },
      off(name) {
        delete handlers[name];
      },
      onSDKHandleClick(handler) {
        handlers.sdkHandleClick = handler; // the sandbox shows no pay button of its own to click
      },
      focus() {},
      blur() {},
      clear() {},
      collapse() {},
      frame: () => frame,
      reload() {
        sendWhenReady({action: "reload"});
      },
      // Ask the element to confirm; resolves as the real SDK's confirmPayment does.
      submit(confirmParams, redirect) {
        if (!frame) return Promise.resolve(failure("validation_error", "The payment element is not mounted"));
        const loaded = Promise.race([ready.then(() => true), delay(READY_WAIT_MS).then(() => false)]);
        return loaded.then((isLoaded) => isLoaded ? new Promise((resolve) => {
          const requestId = ++counter;
          waiting.set(requestId, {resolve, redirect});
          send({action: "submit", requestId, redirect, confirmParams: {return_url: confirmParams.return_url}});
        }) : failure("validation_error", "The payment element did not load"));
      },
      receive(message) {
        if (message.event === "height") frame.style.height = `${Math.max(0, Number(message.height) || 0)}px`;
        if (message.event === "ready") {
          markReady();
          fire("ready", {});
        }
        if (message.event === "change") fire("change", {complete: message.complete, empty: message.empty, value: message.value});
        if (message.event === "focus" || message.event === "blur") fire(message.event, {});
        if (message.event === "openUrl") navigateTop(message.url);
        if (message.event === "result") settle(message);
      },
    };

    function settle(message) {
      const request = waiting.get(message.requestId);
      if (!request || message.pending) return; // the page is being sent elsewhere to finish
      waiting.delete(message.requestId);
      if (!message.ok) return request.resolve({error: message.error});
      if (request.redirect === "always" && message.url) return navigateTop(message.url);
      request.resolve(message.data);
    }

    return element;
  }

  // An element of a kind the sandbox does not draw (a lone card field, express checkout, ...).
  function createInertElement(type) {
    const noop = () => {};
    return {
      mount() {
        console.warn(`Hyper: the sandbox draws only the "payment" element, not "${type}"`);
      },
      unmount: noop, destroy: noop, update: noop, on: noop, off: noop, onSDKHandleClick: noop,
      focus: noop, blur: noop, clear: noop, collapse: noop,
    };
  }

  // -- the instance --------------------------------------------------------------------------------

  function Hyper(keyOrConfig, hyperOptions) {
    const publishableKey = typeof keyOrConfig === "string" ? keyOrConfig : (keyOrConfig || {}).publishableKey || "";
    if (!/^pk_(snd|dev|prd)_/.test(publishableKey)) {
      console.warn("Hyper: the publishable key should start with pk_snd_, pk_dev_ or pk_prd_");
    }
    const groups = [];
    const settings = {...hyperOptions};

    function api(method, path, body) {
      return fetch(apiOrigin + path, {
        method,
        headers: {"api-key": publishableKey, "Content-Type": "application/json"},
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (response) => ({ok: response.ok, body: await response.json()}));
    }

    function widgets(groupOptions) {
      const created = {};
      const group = {publishableKey, options: {...groupOptions}, created};
      groups.push(group);
      return {
        create(type, elementOptions) {
          if (!created[type]) {
            created[type] = type === "payment" ? createPaymentElement(group, elementOptions) : createInertElement(type);
          }
          return created[type];
        },
        getElement: (type) => created[type] || null,
        update(newOptions) {
          Object.assign(group.options, newOptions);
        },
        fetchUpdates() {
          if (created.payment) created.payment.reload();
          return Promise.resolve({});
        },
        updateIntent: updateIntent,
        createCardForm: () => createInertElement("cardForm"),
      };
    }

    // The element that confirms: the one of the widgets given, else the last one mounted.
    function paymentElementFor(given) {
      const own = given && typeof given.getElement === "function" ? given.getElement("payment") : null;
      if (own && own.frame && own.frame()) return own;
      const mine = elements.filter((e) => groups.some((g) => g.created.payment === e));
      return mine[mine.length - 1] || null;
    }

    function confirmPayment(payload) {
      const request = payload || {};
      const element = paymentElementFor(request.widgets || request.elements);
      if (!element) return Promise.resolve(failure("validation_error", "Mount the payment element before confirming"));
      return element.submit(request.confirmParams || {}, request.redirect || "if_required");
    }

    function confirmCardPayment(clientSecret, data) {
      const returnUrl = data && data.return_url;
      return confirmPayment({confirmParams: {return_url: returnUrl}, redirect: returnUrl ? "always" : "if_required"});
    }

    // {paymentIntent} as the API shows the payment to the publishable key, or null when it will not.
    function retrievePaymentIntent(clientSecret) {
      const path = `/payments/${encodeURIComponent(paymentIdOf(clientSecret))}` +
        `?client_secret=${encodeURIComponent(clientSecret || "")}`;
      return api("GET", path)
        .then((answer) => (answer.ok ? {paymentIntent: answer.body} : null))
        .catch(() => null);
    }

    // Pay with a saved method without an element (the headless flow of initPaymentSession).
    function confirmWithSaved(clientSecret, method, request) {
      if (!method) return Promise.resolve(failure("invalid_request", "The customer has no saved payment method"));
      const params = (request && request.confirmParams) || {};
      const body = {client_secret: clientSecret, payment_token: method.payment_token};
      if (params.return_url) body.return_url = params.return_url;
      return api("POST", `/payments/${encodeURIComponent(paymentIdOf(clientSecret))}/confirm`, body).then((answer) => {
        if (!answer.ok) return {error: {type: answer.body.error.type, message: answer.body.error.message}};
        const next = answer.body.next_action;
        if (next && next.type === "redirect_to_url") {
          navigateTop(next.redirect_to_url);
          return new Promise(() => {}); // the page is being sent elsewhere to finish
        }
        return answer.body;
      });
    }

    function initPaymentSession(sessionOptions) {
      const clientSecret = (sessionOptions || {}).clientSecret || "";
      return {
        getCustomerSavedPaymentMethods() {
          return api("GET", `/customers/payment_methods?client_secret=${encodeURIComponent(clientSecret)}`)
            .then((answer) => {
              if (!answer.ok) return {error: {type: answer.body.error.type, message: answer.body.error.message}};
              const methods = answer.body.customer_payment_methods;
              const byDefault = methods.find((m) => m.default_payment_method_set) || methods[0] || null;
              const lastUsed = [...methods].sort((a, b) => String(b.last_used_at).localeCompare(String(a.last_used_at)))[0] || null;
              return {
                getCustomerSavedPaymentMethodData: () => methods,
                getCustomerDefaultSavedPaymentMethodData: () => byDefault,
                getCustomerLastUsedPaymentMethodData: () => lastUsed,
                confirmWithCustomerDefaultPaymentMethod: (request) => confirmWithSaved(clientSecret, byDefault, request),
                confirmWithLastUsedPaymentMethod: (request) => confirmWithSaved(clientSecret, lastUsed, request),
              };
            });
        },
        updateIntent: updateIntent,
      };
    }

    // The real SDK refreshes its sessions after the shop changed the payment; there are none here.
    function updateIntent(update) {
      return Promise.resolve(typeof update === "function" ? update() : undefined).then(() => {
        for (const group of groups) if (group.created.payment) group.created.payment.reload();
        return {updateCompleted: true};
      });
    }

    return {
      widgets,
      elements: widgets,
      confirmPayment,
      confirmTokenization: confirmPayment,
      confirmOneClickPayment: (payload, result) => (result === false ? Promise.resolve(null) : confirmPayment(payload)),
      confirmCardPayment,
      retrievePaymentIntent,
      initPaymentSession,
      paymentRequest: () => ({canMakePayment: () => Promise.resolve(null), on() {}, show() {}}),
      completeUpdateIntent: () => updateIntent().then(() => ({updateCompleted: true})),
      initiateUpdateIntent: () => Promise.resolve({updateInitiated: true}),
      options: settings,
    };
  }

  Hyper.init = Hyper;
  window.Hyper = Hyper;
})();
