import type { Config } from "tailwindcss";

// The theme (brand colours, fonts) is in app/globals.css: as CSS variables, a portal's appearance can change it.
const config: Config = {
  content: ["./app/**/*.{ts,tsx}", "./components/**/*.{ts,tsx}"],
};

export default config;
