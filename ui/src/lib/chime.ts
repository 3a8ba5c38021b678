// The alert sound: a short tone, played through an audio context made on first use. Without an
// audio device it stays silent; the banner and the flashing still alert.
export class Chime {
  private audio: AudioContext | null = null;

  /** Plays the tone once. */
  ring(): void {
    try {
      this.audio ??= new AudioContext();
      const audio = this.audio;
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.15, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.5);
      osc.connect(gain).connect(audio.destination);
      osc.start();
      osc.stop(audio.currentTime + 0.5);
    } catch {
      // No audio device: the banner and the flashing still alert.
    }
  }
}
