export * from './constants.js';
export * from './messages.js';
export * from './password-strength.js';
export * from './handles.js';
export * from './contracts/common.js';
export * from './contracts/auth.js';
export * from './contracts/system.js';
export * from './contracts/handles.js';
