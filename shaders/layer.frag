#version 150
// wec client, level layer plane (fragment stage): a translucent tinted plane (the Air
// or Sub level) with grid lines at the square borders. wec_opacity fades the whole
// level: 0 leaves what is behind unchanged, 1 shows the plane at the tint's alpha.
// Alpha blended: the geometry needs TransparencyAttrib.M_alpha (client/shading.py).

uniform vec4 p3d_ColorScale;

uniform vec4 wec_tint;           // rgb: level colour; a: opacity of the plane between lines
uniform float wec_opacity;       // 0..1, fades plane and lines together
uniform vec2 wec_grid_origin;    // world xy of a square corner
uniform float wec_square_size;   // world units

in vec3 v_world_position;

out vec4 o_color;

const float LINE_HALF_WIDTH = 0.025;   // squares
const float LINE_ALPHA = 0.8;          // lines are at least this opaque (before fading)
const float LINE_LIGHTEN = 0.4;        // lines are the tint plus this much white

void main() {
    vec2 cell = (v_world_position.xy - wec_grid_origin) / wec_square_size;
    vec2 from_border = abs(cell - floor(cell + 0.5));    // squares to the nearest border
    vec2 pixel = fwidth(cell);                           // antialiasing width
    vec2 on_lines = 1.0 - smoothstep(LINE_HALF_WIDTH - pixel, LINE_HALF_WIDTH + pixel,
                                     from_border);
    float line = max(on_lines.x, on_lines.y);

    vec3 rgb = mix(wec_tint.rgb, min(wec_tint.rgb + LINE_LIGHTEN, vec3(1.0)), line);
    float alpha = mix(wec_tint.a, max(wec_tint.a, LINE_ALPHA), line);
    o_color = vec4(rgb, alpha * wec_opacity) * p3d_ColorScale;
}
