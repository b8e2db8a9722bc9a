"use client";

import { useEffect, useState } from "react";
import { noticeClass } from "@/components/ui/notice";

const QUIET_SECONDS = 3;

/**
 * While a sale waits for the provider: nothing for the first seconds (most answers take well under one), then
 * what is going on and what to do, with the seconds waited. The live region exists from the start, so the
 * sentence is announced when it appears; the counter is not read out every second.
 */
export function SlowAnswerNotice() {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    const started = Date.now();
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <div role="status" className="empty:hidden">
      {seconds >= QUIET_SECONDS ? (
        <p className={`${noticeClass("progress")} text-sm`}>
          O fornecedor está demorando a responder. Mantenha o cliente na linha e não feche esta página: a
          resposta aparece aqui. <span aria-hidden="true">({seconds} s)</span>
        </p>
      ) : null}
    </div>
  );
}
