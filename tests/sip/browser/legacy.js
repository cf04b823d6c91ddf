// The harness over SIP.js 0.9.2 (its browser bundle, the global SIP), as the platform's CTI connector uses it.
(() => {
  const events = (window.events = []);
  const sessions = [];
  let ua, domain;
  window.harness = {
    start(c) {
      domain = c.domain;
      ua = new SIP.UA({
        uri: `${c.user}@${c.domain}`,
        wsServers: [c.server],
        authorizationUser: c.user,
        password: c.password,
        register: false,
        userAgentString: c.userAgent,
        traceSip: false,
        log: { builtinEnabled: false },
        hackIpInContact: false,
      });
      ua.on("invite", (session) => {
        sessions.push(session);
        const callId = session.request.call_id;
        events.push(["invite", callId]);
        session.on("accepted", () => events.push(["session", callId, "Established"]));
        session.on("bye", () => events.push(["session", callId, "Terminated"]));
        session.accept({ media: { constraints: { audio: true, video: false } } });
      });
      return new Promise((resolve) => ua.on("connected", resolve));
    },
    subscribe(node) {
      const subscription = ua.subscribe(`${node}@${domain}`, "dialog", { expires: 600 });
      subscription.on("notify", ({ request }) => events.push(["notify", node, request.body]));
      subscription.on("failed", (response) => events.push(["rejected", node, response ? response.status_code : 0]));
    },
    register() {
      return new Promise((resolve) => {
        ua.on("registered", () => {
          events.push(["registration", "Registered"]);
          resolve();
        });
        ua.register({ expires: 600 });
      });
    },
    bye() {
      sessions[sessions.length - 1].bye();
    },
  };
  window.ready = true;
})();
