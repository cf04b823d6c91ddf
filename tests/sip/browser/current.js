// The harness over SIP.js at its current release (ES modules): the same calls as legacy.js.
import { Registerer, Subscriber, UserAgent } from "./sipjs/lib/index.js";

const events = (window.events = []);
const sessions = [];
let ua, domain;

window.harness = {
  async start(c) {
    domain = c.domain;
    ua = new UserAgent({
      uri: UserAgent.makeURI(`sip:${c.user}@${c.domain}`),
      transportOptions: { server: c.server },
      authorizationUsername: c.user,
      authorizationPassword: c.password,
      userAgentString: c.userAgent,
      logLevel: "error",
      sessionDescriptionHandlerFactoryOptions: { iceGatheringTimeout: 100, peerConnectionConfiguration: { iceServers: [] } },
      delegate: {
        onInvite: async (invitation) => {
          sessions.push(invitation);
          events.push(["invite", invitation.request.callId]);
          invitation.stateChange.addListener((state) => events.push(["session", invitation.request.callId, state]));
          await invitation.accept({ sessionDescriptionHandlerOptions: { constraints: { audio: true, video: false } } });
        },
      },
    });
    const received = ua.transport.onMessage;
    ua.transport.onMessage = (message) => {
      events.push(["received", message]);
      received(message);
    };
    await ua.start();
  },
  subscribe(node) {
    const subscriber = new Subscriber(ua, UserAgent.makeURI(`sip:${node}@${domain}`), "dialog", { expires: 600 });
    subscriber.delegate = {
      onNotify: (notification) => {
        notification.accept();
        events.push(["notify", node, notification.request.body]);
      },
    };
    subscriber.stateChange.addListener((state) => events.push(["subscription", node, state]));
    return subscriber.subscribe();
  },
  register() {
    const registerer = new Registerer(ua, { expires: 600 });
    return new Promise((resolve) => {
      registerer.stateChange.addListener((state) => {
        events.push(["registration", state]);
        if (state === "Registered") resolve();
      });
      registerer.register();
    });
  },
  async bye() {
    await sessions[sessions.length - 1].bye();
  },
};
window.ready = true;
