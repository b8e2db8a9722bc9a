// Type-checked by `tsc` (npm test), never run: public/embed.d.ts used as a portal's code would use it. The check
// fails when the declarations stop fitting that use, stop catching a misuse below (each expected error must
// occur), or drift from what the frame really posts.
import type { EmbedEvent } from "@/components/embed/parent-channel";
import type { AppearanceSetting, AppearanceWarningCode } from "@/lib/embed-appearance";
import type { EmbedErrorCode, PortalSideErrorCode } from "@/lib/errors/embed";
import type { PrefillField } from "@/lib/validation/prefill";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;

export type DeclaredErrorCodes = Holds<Same<PartnerSales.ErrorCode, EmbedErrorCode | PortalSideErrorCode>>;
export type DeclaredWarningCodes = Holds<Same<PartnerSales.WarningCode, AppearanceWarningCode>>;
export type DeclaredAppearance = Holds<Same<PartnerSales.AppearanceSetting, AppearanceSetting>>;
export type DeclaredPrefill = Holds<Same<keyof PartnerSales.Prefill, PrefillField>>;
export type DeclaredEventTypes = Holds<Same<PartnerSales.FrameEvent["type"], EmbedEvent["type"]>>;
// Every event the frame posts is a declared one.
export type DeclaredEvents = Holds<[EmbedEvent] extends [PartnerSales.FrameEvent] ? true : false>;

export function portalUsage(element: HTMLElement, log: (...values: unknown[]) => void) {
  const handle = PartnerSales.mount(element, {
    src: "https://partner-sales.example/embed",
    token: () => fetch("/partner-sales/token", { method: "POST" }).then((response) => response.text()),
    prefill: { customerPhone: "11987654321", externalId: "CRM-42" },
    title: "Partner Sales",
    initialHeight: 480,
    appearance: { brandColor: "#7a1f5c", radius: 6, fontFamily: "Inter, Arial, sans-serif" },
    onEvent(event) {
      switch (event.type) {
        case "partner-sales:ready":
          return log(event.awaitingToken === true);
        case "partner-sales:resize":
          return log(event.height + 1);
        case "partner-sales:submitted":
          return log(event.submissionId, event.protocol.split("-"), event.externalId?.length, event.status);
        case "partner-sales:error":
          return log(event.code === "session_missing" ? "sign in" : event.code);
        case "partner-sales:warning":
          return log(event.setting, event.code);
        default: {
          const unhandled: never = event;
          return unhandled;
        }
      }
    },
  });
  handle.prefill({ customerName: "Maria", birthDate: "1990-05-10" });
  log(handle.iframe.contentWindow);
  handle.unmount();
  window.PartnerSales.mount(element, { src: "/embed", token: "header.payload.signature" });
  PartnerSales.mount(element, { src: "/embed", token: async () => null });
  const message: PartnerSales.PortalMessage = { type: "partner-sales:token", token: null };
  log(message);

  // @ts-expect-error src is required
  PartnerSales.mount(element, { token: "header.payload.signature" });
  // @ts-expect-error the token is text, or a function giving it
  PartnerSales.mount(element, { src: "/embed", token: 42 });
  // @ts-expect-error the form has no such field
  handle.prefill({ customerAge: "30" });
  // @ts-expect-error the radius is a number of pixels
  PartnerSales.mount(element, { src: "/embed", appearance: { radius: "8px" } });
  // @ts-expect-error not an appearance setting
  PartnerSales.mount(element, { src: "/embed", appearance: { brandColour: "#7a1f5c" } });
  PartnerSales.mount(element, {
    src: "/embed",
    onEvent(event) {
      // @ts-expect-error not a code the frame posts
      if (event.type === "partner-sales:error" && event.code === "token_lost") log(event);
      // @ts-expect-error a resize carries no code
      if (event.type === "partner-sales:resize") log(event.code);
    },
  });
}
