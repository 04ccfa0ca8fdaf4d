import type { BrowserContext, LaunchOptions } from 'playwright-core';
export declare const CHROMIUM: string;
export declare const CHROMIUM_LAUNCH: LaunchOptions;
export declare const CHROMIUM_VIEWPORT: { width: number; height: number };
export declare function requireChromium(): void;
export declare function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }>;
