// What the page hears: every peer connection it makes is kept (window.peerConnections), and the
// dominant frequency of the last one's remote audio is measured with a WebAudio analyser.
const made = (window.peerConnections = []);
const Native = window.RTCPeerConnection;
window.RTCPeerConnection = class extends Native {
  constructor(...args) {
    super(...args);
    made.push(this);
  }
};

window.hearing = {
  // Listen to the remote audio for `ms` milliseconds: the strongest frequency (Hz) and its level (dBFS).
  async dominant(ms) {
    const pc = made[made.length - 1];
    const track = pc.getReceivers().map((r) => r.track).find((t) => t && t.kind === "audio");
    const stream = new MediaStream([track]);
    const sink = new Audio(); // Chromium feeds a remote track to WebAudio only while a media element plays it
    sink.muted = true;
    sink.srcObject = stream;
    await sink.play().catch(() => {});
    const context = new AudioContext();
    await context.resume();
    const analyser = context.createAnalyser();
    analyser.fftSize = 8192;
    analyser.smoothingTimeConstant = 0;
    context.createMediaStreamSource(stream).connect(analyser);
    const bins = new Float32Array(analyser.frequencyBinCount);
    const sum = new Float64Array(analyser.frequencyBinCount);
    let reads = 0;
    for (const end = performance.now() + ms; performance.now() < end; reads++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      analyser.getFloatFrequencyData(bins);
      bins.forEach((db, i) => (sum[i] += Math.pow(10, db / 20)));
    }
    let best = 1;
    for (let i = 2; i < sum.length; i++) if (sum[i] > sum[best]) best = i;
    const heard = { hz: (best * context.sampleRate) / analyser.fftSize, dbfs: 20 * Math.log10(sum[best] / reads) };
    await context.close();
    sink.srcObject = null;
    return heard;
  },
};
